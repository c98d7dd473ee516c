// pgTAP as `supabase test db` installs it before its run: what a test database has beyond a real one.
// The tests.* helpers are not here: the suite's first file (supabase/tests/000-setup-tests-hooks.sql)
// installs them.

/** The statement `supabase test db` runs before it starts pg_prove. */
export const ENABLE_PGTAP = 'create extension if not exists pgtap with schema extensions';

export async function installPgtap(client: { query(sql: string): Promise<unknown> }): Promise<void> {
  await client.query(ENABLE_PGTAP);
}
