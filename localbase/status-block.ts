// The status block of `npm run backend`, like `supabase start`'s, and the same as status.json.
//
// With the embedded PostgreSQL it names its `DB URL` with the superuser's password, as `supabase
// start` does (for `psql`, a migration tool, a GUI): on the terminal of whoever started it and in
// DATA_DIR/status.json (0600), which only they can read, like DATA_DIR/postgres-password itself.
// It is never logged: localbase's logger never sees it. A DATABASE_URL is the admin's own and
// PGlite has no port: neither gets the line.
import type { Database } from '#db/database.ts';
import type { Localbase } from './server.ts';

/** The embedded PostgreSQL's connection URL, with its password; undefined for PGlite and DATABASE_URL. */
export function dbUrlOf(database: Pick<Database, 'postgres'>): string | undefined {
  const server = database.postgres;
  if (!server) return undefined;
  const credentials = `${encodeURIComponent(server.user)}:${encodeURIComponent(server.password)}`;
  return `postgresql://${credentials}@${server.host}:${server.port}/${encodeURIComponent(server.database)}`;
}

export function statusOf(localbase: Localbase) {
  const dbUrl = dbUrlOf(localbase.database);
  return {
    api_url: localbase.url,
    ...(dbUrl ? { db_url: dbUrl } : {}),
    anon_key: localbase.anonKey,
    service_role_key: localbase.serviceRoleKey,
    access_token: localbase.accessToken,
    management_api_url: localbase.url,
    data_dir: localbase.dataDir,
    database: localbase.database.location,
    engine: localbase.database.engineName ?? localbase.database.kind,
    ...(localbase.database.notice ? { engine_notice: localbase.database.notice } : {}),
  };
}

export function statusBlock(status: ReturnType<typeof statusOf>): string {
  return [
    'localbase is running.',
    '',
    `         API URL: ${status.api_url}`,
    ...(status.db_url ? [`          DB URL: ${status.db_url}`] : []),
    `        anon key: ${status.anon_key}`,
    `service_role key: ${status.service_role_key}`,
    `    access token: ${status.access_token}  (management API: POST ${status.management_api_url}/v1/projects/local/database/query)`,
    `        data dir: ${status.data_dir}`,
    `        database: ${status.database}`,
    `          engine: ${status.engine}`,
    ...(status.engine_notice ? [`            note: ${status.engine_notice}`] : []),
    '',
  ].join('\n');
}
