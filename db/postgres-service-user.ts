// Who runs the embedded PostgreSQL. PostgreSQL refuses to run as root, so a server started as root
// runs it as the unprivileged system user `postgres` (created when missing, as a system account
// with no home and no login shell), which then owns DATA_DIR/postgres. Any other user runs it as
// itself. That user must be able to reach DATA_DIR and the binaries: a checkout under /root (mode
// 0700) is out of its reach, which is found here and said in one line instead of a failing start.
import { execFile } from 'node:child_process';
import { stat } from 'node:fs/promises';
import path from 'node:path';

export const SERVICE_USER = 'postgres';

export interface ServiceUser {
  /** Undefined: this process's own user (not root), no switch. */
  uid?: number;
  gid?: number;
  name: string;
  /** The user was created by this start (`useradd --system`). */
  created?: boolean;
}

export type ServiceUserResult = { ok: true; user: ServiceUser } | { ok: false; reason: string };

function run(command: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 15_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) || (error?.message ?? '') });
    });
  });
}

/** The user's uid, primary gid and every group it is in; undefined when there is no such user. */
export async function lookUpUser(name: string): Promise<{ uid: number; gid: number; groups: number[] } | undefined> {
  const [uid, gid, groups] = await Promise.all([
    run('id', ['-u', name]),
    run('id', ['-g', name]),
    run('id', ['-G', name]),
  ]);
  if (uid.code !== 0 || gid.code !== 0) return undefined;
  return {
    uid: Number(uid.stdout.trim()),
    gid: Number(gid.stdout.trim()),
    groups: groups.stdout.trim().split(/\s+/).filter(Boolean).map(Number),
  };
}

/**
 * Whether `user` may pass through every folder above and including `dir` (the execute bit for its
 * owner, group or others, as the kernel checks it), and the first folder that stops it.
 */
export async function firstUnreachableFolder(
  dir: string,
  user: { uid: number; gid: number; groups: number[] },
): Promise<string | undefined> {
  const folders: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    folders.unshift(current);
    if (path.dirname(current) === current) break;
  }
  for (const folder of folders) {
    const info = await stat(folder).catch(() => undefined);
    if (!info) return undefined; // not made yet: its parent was reachable, and the server makes it
    const groups = new Set([user.gid, ...user.groups]);
    const bit = info.uid === user.uid ? 0o100 : groups.has(info.gid) ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) return folder;
  }
  return undefined;
}

/**
 * The user to run PostgreSQL as. Not root: this process's user. Root: `postgres`, created when
 * missing (Linux's `useradd --system`); refused, with the reason, when it cannot reach `dataDir`
 * or `binDir`.
 */
export async function serviceUser(
  dataDir: string,
  binDir: string,
  options: { isRoot?: boolean; name?: string } = {},
): Promise<ServiceUserResult> {
  const isRoot = options.isRoot ?? process.getuid?.() === 0;
  if (!isRoot) return { ok: true, user: { name: 'this user' } };
  const name = options.name ?? SERVICE_USER;
  let found = await lookUpUser(name);
  let created = false;
  if (!found) {
    // A group of that name without the user (left by a removed package) is joined, not made again.
    const groupExists = (await run('getent', ['group', name])).code === 0;
    const made = await run('useradd', [
      '--system',
      ...(groupExists ? ['--gid', name] : ['--user-group']),
      '--no-create-home',
      '--home-dir',
      '/nonexistent',
      '--shell',
      '/usr/sbin/nologin',
      name,
    ]);
    found = await lookUpUser(name);
    if (!found) {
      return {
        ok: false,
        reason: `running as root, PostgreSQL needs an unprivileged user, and creating "${name}" failed: ${made.stderr.trim()}`,
      };
    }
    created = true;
  }
  for (const [what, folder] of [
    ['DATA_DIR', dataDir],
    ['the PostgreSQL binaries', binDir],
  ] as const) {
    const blocked = await firstUnreachableFolder(folder, found);
    if (blocked) {
      return {
        ok: false,
        reason: `the system user "${name}" that runs PostgreSQL for root cannot reach ${what} (${blocked} is closed to it); move the checkout or DATA_DIR out of it, or set LOCALBASE_ENGINE=pglite`,
      };
    }
  }
  return { ok: true, user: { uid: found.uid, gid: found.gid, name, ...(created ? { created } : {}) } };
}
