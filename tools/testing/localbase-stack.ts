// A localbase for integration tests: a temp DATA_DIR, a random loopback port and the parity
// database (in `npm test` the file's own copy of the run's migrated template on its PostgreSQL 15,
// or PGlite in the fallback's suite) unless the test passes its own. Passwords are hashed at
// bcrypt's least cost unless the test asks for another (LocalbaseOptions.passwordHashCost says
// why). close() stops the server, closes what it opened and removes the temp dir.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Database } from '#db/database.ts';
import { BCRYPT_MIN_COST, startLocalbase, type Localbase, type LocalbaseOptions } from '#localbase';
import { openParityDatabase } from './parity-database.ts';

export interface LocalbaseStackOptions {
  /** A database the test owns (it stays open after close()); default: a fresh parity database. */
  database?: Database;
  logger?: boolean | object;
  /** Auth's site URL, redirect allow list, external URL, SMTP server, anonymous sign-ins and e-mail change rule (LocalbaseOptions). */
  auth?: Pick<
    LocalbaseOptions,
    'siteUrl' | 'redirectAllowList' | 'externalUrl' | 'smtpUrl' | 'anonymousSignIns' | 'doubleConfirmEmailChanges'
  >;
  /** bcrypt's cost; default bcrypt's least (BCRYPT_MIN_COST). */
  passwordHashCost?: number;
}

export async function startLocalbaseStack(options: LocalbaseStackOptions = {}): Promise<Localbase> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'localbase-test-'));
  const database = options.database ?? (await openParityDatabase());
  try {
    const localbase = await startLocalbase({
      dataDir,
      database,
      port: 0,
      logger: options.logger ?? false,
      passwordHashCost: options.passwordHashCost ?? BCRYPT_MIN_COST,
      ...options.auth,
    });
    return {
      ...localbase,
      close: async () => {
        await localbase.close();
        if (!options.database) await database.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    if (!options.database) await database.close();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
