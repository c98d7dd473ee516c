// `npm run backend`: localbase alone, like `supabase start`. Prints the status block, writes the
// same as DATA_DIR/status.json (0600) and closes the database cleanly on SIGINT/SIGTERM.
import path from 'node:path';
import { readEnv } from '#config/env.ts';
import { closeOnSignals } from '#db/database.ts';
import { writePrivateFile } from '#db/private-file.ts';
import { startLocalbase } from './server.ts';
import { statusBlock, statusOf } from './status-block.ts';

/** The variables `npm run backend` reads (their rules live in config/env.ts). */
const BACKEND_ENV = [
  'DATA_DIR',
  'DATABASE_URL',
  'LOCALBASE_PORT',
  'LOCALBASE_API_SCHEMAS',
  'LOCALBASE_API_MAX_ROWS',
  'LOCALBASE_API_AGGREGATES',
  'LOCALBASE_API_PLANS',
  'LOCALBASE_API_TX_END',
  'LOCALBASE_API_PRE_REQUEST',
  'LOCALBASE_API_HOISTED_TX_SETTINGS',
  'SMTP_URL',
  'LOCALBASE_ANONYMOUS_SIGN_INS',
  'LOCALBASE_ENGINE',
] as const;

async function main(): Promise<void> {
  const env = readEnv(process.env, BACKEND_ENV);
  if (!env.ok) {
    for (const problem of env.problems) console.error(`localbase: config: ${problem}`);
    process.exit(1);
  }
  const { DATA_DIR: dataDir, DATABASE_URL: databaseUrl, LOCALBASE_PORT: port } = env.value;
  const localbase = await startLocalbase({
    dataDir,
    databaseUrl,
    port,
    schemas: env.value.LOCALBASE_API_SCHEMAS,
    maxRows: env.value.LOCALBASE_API_MAX_ROWS,
    aggregates: env.value.LOCALBASE_API_AGGREGATES,
    plans: env.value.LOCALBASE_API_PLANS,
    txEnd: env.value.LOCALBASE_API_TX_END,
    ...(env.value.LOCALBASE_API_PRE_REQUEST === undefined ? {} : { preRequest: env.value.LOCALBASE_API_PRE_REQUEST }),
    ...(env.value.LOCALBASE_API_HOISTED_TX_SETTINGS === undefined
      ? {}
      : { hoistedTxSettings: env.value.LOCALBASE_API_HOISTED_TX_SETTINGS }),
    smtpUrl: env.value.SMTP_URL,
    anonymousSignIns: env.value.LOCALBASE_ANONYMOUS_SIGN_INS,
    engine: env.value.LOCALBASE_ENGINE,
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
