// Run SQL as a signed-in student the way the Data API does: one transaction, role authenticated,
// request.jwt.claims set locally so auth.uid() is the student, as a session that has just entered
// her password (the `amr` claim, which account deletion reads).
import type { Pool, PoolClient } from 'pg';

export async function createStudent(pool: Pool, name: string): Promise<string> {
  const { rows } = await pool.query<{ id: string }>(
    `insert into auth.users (id, aud, role, email, encrypted_password, email_confirmed_at, created_at, updated_at)
     values (gen_random_uuid(), 'authenticated', 'authenticated', $1, '', now(), now(), now()) returning id`,
    [`${name}@test.local`],
  );
  return firstRow(rows).id;
}

export function firstRow<T>(rows: T[]): T {
  const row = rows[0];
  if (row === undefined) throw new Error('expected a row, the query returned none');
  return row;
}

export async function asStudent<T>(pool: Pool, userId: string, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await client.query(
      `select set_config('role', 'authenticated', true),
                               set_config('request.jwt.claims', $1, true)`,
      [
        JSON.stringify({
          sub: userId,
          role: 'authenticated',
          amr: [{ method: 'password', timestamp: Math.floor(Date.now() / 1000) }],
        }),
      ],
    );
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (error) {
    await client.query('rollback');
    throw error;
  } finally {
    client.release();
  }
}
