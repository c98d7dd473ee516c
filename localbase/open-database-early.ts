// The launcher's first step (tools/build/start.mjs, before it loads the program): open the
// database that localbase will ask for, so that PostgreSQL starts while the server's code is
// compiled (db/early-open.ts). Built as an entry of its own and kept small: it reads only the
// settings that choose the database, through the same schema as the programs (config/env.ts).
import { readEnv } from '#config/env.ts';
import { openDatabaseEarly } from '#db/early-open.ts';

/** localbase's database events on the terminal: its first start, a fallback to PGlite, a stopped orphan. */
export function logDatabaseEvent(line: string): void {
  console.error(`localbase: ${line}`);
}

/**
 * Starts opening the database of `program` (`gateway-main`: `npm start`, `localbase-main`: `npm run
 * backend`). Nothing when it will run no localbase (`npm start` with BACKEND_URL) or a setting is
 * invalid: the program then says why, as it always has.
 */
export function openDatabaseForProgram(program: string, env: NodeJS.ProcessEnv = process.env): void {
  const settings = readEnv(env, ['DATA_DIR', 'DATABASE_URL', 'LOCALBASE_ENGINE', 'BACKEND_URL']);
  if (!settings.ok) return;
  if (program === 'gateway-main' && settings.value.BACKEND_URL) return;
  openDatabaseEarly({
    dataDir: settings.value.DATA_DIR,
    databaseUrl: settings.value.DATABASE_URL,
    engine: settings.value.LOCALBASE_ENGINE,
    log: logDatabaseEvent,
  });
}
