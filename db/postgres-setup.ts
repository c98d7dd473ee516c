// What the embedded PostgreSQL needs on this machine before it can start: binaries that run, the
// user that runs them (postgres-service-user.ts), and binaries that user can reach, copied into a
// cache when the checkout is closed to it (postgres-binaries-cache.ts). The server's start and the
// move from PGlite both ask here, so both run PostgreSQL the same way.
import { binariesReachableBy } from './postgres-binaries-cache.ts';
import { findPostgresBinaries, type PostgresBinaries } from './postgres-binaries.ts';
import { serviceUser, type ServiceUser } from './postgres-service-user.ts';

export interface PostgresSetupOptions {
  /** The folder of `postgres` and `initdb` instead of the npm package's (tests). */
  binDir?: string | undefined;
  /** Where a copy of the binaries may go (tests); default the system's cache, then the temp folder. */
  cacheRoots?: readonly string[] | undefined;
  log?: ((line: string) => void) | undefined;
}

export type PostgresSetup = { ok: true; binaries: PostgresBinaries; user: ServiceUser } | { ok: false; reason: string };

/** The binaries and the user to run them as, or the one reason PostgreSQL cannot run here. */
export async function preparePostgres(dataDir: string, options: PostgresSetupOptions = {}): Promise<PostgresSetup> {
  const found = await findPostgresBinaries(options.binDir);
  if (!found.ok) return found;
  const user = await serviceUser(dataDir);
  if (!user.ok) return user;
  if (user.user.created) options.log?.(`created the system user "${user.user.name}" to run PostgreSQL (root may not)`);
  const { uid, gid, groups, name } = user.user;
  if (uid === undefined || gid === undefined) return { ok: true, binaries: found.binaries, user: user.user };
  const reachable = await binariesReachableBy(
    found.binaries,
    { uid, gid, groups: groups ?? [gid], name },
    {
      ...(options.cacheRoots ? { roots: options.cacheRoots } : {}),
      ...(options.log ? { log: options.log } : {}),
    },
  );
  return reachable.ok ? { ok: true, binaries: reachable.binaries, user: user.user } : reachable;
}
