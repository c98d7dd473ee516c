// A temporary folder for a DATA_DIR that the embedded PostgreSQL can use when the tests run as
// root. mkdtemp makes folders 0700, which the system user that runs PostgreSQL for root
// (db/postgres-service-user.ts) cannot pass through: the server would then fall back to PGlite
// and the test would not run on the default engine.
import { chmod, mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export async function makeReachableTempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), prefix));
  await chmod(dir, 0o755);
  return dir;
}
