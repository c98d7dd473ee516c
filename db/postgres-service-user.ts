// Who runs the embedded PostgreSQL. PostgreSQL refuses to run as root, so a server started as root
// runs it as the unprivileged system user `postgres` (created when missing, as a system account
// with no home and no login shell), which then owns DATA_DIR/postgres. Any other user runs it as
// itself. That user must be able to reach DATA_DIR: a DATA_DIR under /root (mode 0700) is out of
// its reach, which is found here and said in one line instead of a failing start. The binaries it
// cannot reach are copied where it can (postgres-binaries-cache.ts).
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';

export const SERVICE_USER = 'postgres';

export interface ServiceUser {
  /** Undefined: this process's own user (not root), no switch. */
  uid?: number;
  gid?: number;
  /** Every group it is in (its primary one included), as the kernel checks folder permissions. */
  groups?: number[];
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

export interface UserIds {
  uid: number;
  gid: number;
  groups: number[];
}

/**
 * The user as /etc/passwd and /etc/group name it (the system user useradd makes lives there), or
 * undefined when they do not. Read rather than asked of `id`: three processes spawned from the
 * server cost 30-40 ms of every start as root.
 */
export function userInAccountFiles(name: string, passwd: string, group: string): UserIds | undefined {
  const entry = passwd
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === name && fields.length >= 7);
  const uid = Number(entry?.[2]);
  const gid = Number(entry?.[3]);
  if (!entry || !Number.isInteger(uid) || !Number.isInteger(gid)) return undefined;
  const groups = new Set([gid]);
  for (const line of group.split('\n')) {
    const fields = line.split(':');
    const id = Number(fields[2]);
    if (Number.isInteger(id) && (fields[3] ?? '').split(',').includes(name)) groups.add(id);
  }
  return { uid, gid, groups: [...groups] };
}

/** The user's uid, primary gid and every group it is in; undefined when there is no such user. */
export async function lookUpUser(name: string): Promise<UserIds | undefined> {
  const [passwd, group] = await Promise.all([
    readFile('/etc/passwd', 'utf8').catch(() => ''),
    readFile('/etc/group', 'utf8').catch(() => ''),
  ]);
  const local = userInAccountFiles(name, passwd, group);
  if (local) return local;
  // Accounts from elsewhere (LDAP, systemd's dynamic users): whatever the system's lookup says.
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
export async function firstUnreachableFolder(dir: string, user: UserIds): Promise<string | undefined> {
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

/** The folder to suggest for DATA_DIR when the service user cannot reach the one given. */
export const SUGGESTED_DATA_DIR = '/var/lib/studyhall';

/**
 * The user to run PostgreSQL as. Not root: this process's user. Root: `postgres`, created when
 * missing (Linux's `useradd --system`); refused, with the folder that stops it and the two ways
 * out, when it cannot reach `dataDir`. Nothing of the user's is opened up for it.
 */
export async function serviceUser(
  dataDir: string,
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
  const blocked = await firstUnreachableFolder(dataDir, found);
  if (blocked) {
    return {
      ok: false,
      reason: `the system user "${name}" that runs PostgreSQL for root cannot reach DATA_DIR ${dataDir} (${blocked} is closed to it): set DATA_DIR to a folder it can reach (e.g. DATA_DIR=${SUGGESTED_DATA_DIR}), or LOCALBASE_ENGINE=pglite`,
    };
  }
  return {
    ok: true,
    user: { uid: found.uid, gid: found.gid, groups: found.groups, name, ...(created ? { created } : {}) },
  };
}
