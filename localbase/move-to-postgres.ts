// `npm run db:move-to-postgres`: moves DATA_DIR's PGlite database into the embedded PostgreSQL
// (db/move-to-postgres.ts), with localbase's own tables installed on both sides first so that they
// move too (MFA factors, pending e-mail tokens, the mail outbox). An entry of localbase's because
// those tables are localbase's to create; the copy itself is the database layer's.
import { readEnv } from '#config/env.ts';
import { DataDirLockedError } from '#db/data-dir-lock.ts';
import { moveToPostgres, MoveRefusedError } from '#db/move-to-postgres.ts';
import { installLocalbaseObjects } from './server.ts';

const env = readEnv(process.env, ['DATA_DIR', 'DATABASE_URL'] as const);
if (!env.ok) {
  for (const problem of env.problems) console.error(`db:move-to-postgres: config: ${problem}`);
  process.exit(2);
}
if (env.value.DATABASE_URL) {
  console.error(
    'db:move-to-postgres: DATABASE_URL is set: the server uses that database, not DATA_DIR; nothing to move',
  );
  process.exit(2);
}

try {
  const report = await moveToPostgres({
    dataDir: env.value.DATA_DIR,
    prepare: installLocalbaseObjects,
    log: (line) => console.log(`db:move-to-postgres: ${line}`),
  });
  const rows = report.tables.reduce((sum, table) => sum + table.rows, 0);
  console.log(
    `db:move-to-postgres: done: ${rows} rows in ${report.tables.length} tables, every count and checksum equal. ` +
      `The server now uses ${report.cluster}; the PGlite files stay in DATA_DIR/pgdata until you remove them.`,
  );
  process.exit(0);
} catch (error) {
  if (error instanceof DataDirLockedError) {
    console.error(`db:move-to-postgres: refused: ${error.message}`);
  } else if (error instanceof MoveRefusedError) {
    console.error(`db:move-to-postgres: refused: ${error.message}`);
  } else {
    console.error(
      `db:move-to-postgres: failed, nothing changed (run it again once the cause is fixed): ${(error as Error).message}`,
    );
  }
  process.exit(1);
}
