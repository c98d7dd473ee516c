// `npm run backend`: localbase alone, like `supabase start`. Prints the status block, writes the
// same as DATA_DIR/status.json (0600) and closes the database cleanly on SIGINT/SIGTERM.
import path from 'node:path';
import { z } from 'zod';
import { closeOnSignals } from '../db/database.ts';
import { defaultDataDir } from '../db/paths.ts';
import { writePrivateFile } from './src/keys.ts';
import { DEFAULT_PORT, startLocalbase, type Localbase } from './server.ts';

// An empty variable (`DATABASE_URL= npm run backend`) means unset, as shells and .env files intend.
const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);
const environment = z.object({
  DATA_DIR: z.preprocess(unsetWhenEmpty, z.string().optional()),
  LOCALBASE_PORT: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).max(65535).default(DEFAULT_PORT)),
  DATABASE_URL: z.preprocess(unsetWhenEmpty, z.string().url().optional()),
  // Schemas the Data API exposes, comma-separated, the first being the default (Supabase's
  // `[api] schemas`); and the most rows one answer carries (`[api] max_rows`).
  LOCALBASE_API_SCHEMAS: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .transform((value) => value.split(',').map((schema) => schema.trim()).filter(Boolean))
      .pipe(z.array(z.string().min(1).max(63)).min(1))
      .optional(),
  ),
  LOCALBASE_API_MAX_ROWS: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(1).optional()),
});

export function statusOf(localbase: Localbase) {
  return {
    api_url: localbase.url,
    anon_key: localbase.anonKey,
    service_role_key: localbase.serviceRoleKey,
    access_token: localbase.accessToken,
    management_api_url: localbase.url,
    data_dir: localbase.dataDir,
    database: localbase.database.location,
  };
}

export function statusBlock(status: ReturnType<typeof statusOf>): string {
  return [
    'localbase is running.',
    '',
    `         API URL: ${status.api_url}`,
    `        anon key: ${status.anon_key}`,
    `service_role key: ${status.service_role_key}`,
    `    access token: ${status.access_token}  (management API: POST ${status.management_api_url}/v1/projects/local/database/query)`,
    `        data dir: ${status.data_dir}`,
    `        database: ${status.database}`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const env = environment.parse(process.env);
  const dataDir = env.DATA_DIR ? path.resolve(env.DATA_DIR) : defaultDataDir();
  const localbase = await startLocalbase({
    dataDir,
    databaseUrl: env.DATABASE_URL,
    port: env.LOCALBASE_PORT,
    schemas: env.LOCALBASE_API_SCHEMAS,
    maxRows: env.LOCALBASE_API_MAX_ROWS,
    logger: { level: 'warn' },
  });
  closeOnSignals(() => localbase.close());
  const status = statusOf(localbase);
  await writePrivateFile(path.join(dataDir, 'status.json'), `${JSON.stringify(status, null, 2)}\n`);
  process.stdout.write(statusBlock(status));
}

main().catch((error: unknown) => {
  console.error(`localbase: ${(error as Error).message}`);
  process.exit(1);
});
