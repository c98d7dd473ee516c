// Who runs the embedded PostgreSQL: this user when not root; as root a system user, created when
// missing, that must reach DATA_DIR (the binaries it cannot reach are copied: postgres-binaries-cache.ts).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { firstUnreachableFolder, lookUpUser, serviceUser, userInAccountFiles } from './postgres-service-user.ts';

const isRoot = process.getuid?.() === 0;
const canManageUsers = isRoot && ['/usr/sbin/useradd', '/usr/sbin/userdel'].every((tool) => existsSync(tool));
let temp: string;

beforeEach(async () => {
  temp = await mkdtemp(path.join(os.tmpdir(), 'studyhall-service-user-'));
});

afterEach(async () => {
  await rm(temp, { recursive: true, force: true });
});

describe('the user that runs the embedded PostgreSQL', () => {
  it('is this process’s own user when it is not root: no switch, nothing created', async () => {
    expect(await serviceUser(temp, { isRoot: false })).toEqual({ ok: true, user: { name: 'this user' } });
  });

  it('reads a user and every group it is in from the account files, as `id` would answer', () => {
    const passwd = [
      'root:x:0:0:root:/root:/bin/bash',
      'postgres2:x:120:130::/nonexistent:/usr/sbin/nologin',
      'postgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash',
    ].join('\n');
    const group = [
      'root:x:0:',
      'ssl-cert:x:103:postgres',
      'audio:x:29:alice,postgres2',
      'video:x:44:alice,postgres,bob',
      'postgres:x:104:',
    ].join('\n');
    expect(userInAccountFiles('postgres', passwd, group)).toEqual({ uid: 101, gid: 104, groups: [104, 103, 44] });
    expect(userInAccountFiles('postgres2', passwd, group)).toEqual({ uid: 120, gid: 130, groups: [130, 29] });
    expect(userInAccountFiles('postgre', passwd, group)).toBeUndefined();
    expect(userInAccountFiles('nobody-here', '', '')).toBeUndefined();
  });

  it('looks this process’s own user up as `id` does', async () => {
    const name = os.userInfo().username;
    const id = (flag: string) => execFileSync('id', [flag, name], { encoding: 'utf8' }).trim();
    const found = await lookUpUser(name);
    expect(found).toMatchObject({ uid: Number(id('-u')), gid: Number(id('-g')) });
    expect(found?.groups.slice().sort()).toEqual(id('-G').split(/\s+/).map(Number).sort());
  });

  it('finds the first folder a user cannot pass through, by owner, group and others', async () => {
    const open = path.join(temp, 'open');
    const closed = path.join(temp, 'closed');
    await mkdir(path.join(open, 'inner'), { recursive: true });
    await mkdir(path.join(closed, 'inner'), { recursive: true });
    await chmod(temp, 0o755);
    await chmod(open, 0o755);
    await chmod(closed, 0o700);
    const stranger = { uid: 4242, gid: 4242, groups: [4242] };
    expect(await firstUnreachableFolder(path.join(open, 'inner'), stranger)).toBeUndefined();
    expect(await firstUnreachableFolder(path.join(closed, 'inner'), stranger)).toBe(closed);
    // A folder not made yet is the server's to make: only its existing parents count.
    expect(await firstUnreachableFolder(path.join(open, 'not-yet', 'data'), stranger)).toBeUndefined();
    const owner = { uid: process.getuid?.() ?? 0, gid: 4242, groups: [] };
    expect(await firstUnreachableFolder(path.join(closed, 'inner'), owner)).toBeUndefined();
  });

  it.skipIf(!canManageUsers)(
    'as root creates a missing user as a system account without home or login, and refuses a DATA_DIR it cannot reach',
    async () => {
      const name = `shpg${process.pid}`.slice(0, 16);
      await chmod(temp, 0o755);
      try {
        expect(await lookUpUser(name)).toBeUndefined();
        const created = await serviceUser(temp, { isRoot: true, name });
        expect(created).toMatchObject({ ok: true, user: { name, created: true } });
        // Its groups, for the reachability checks of DATA_DIR and the binaries.
        expect(created.ok && created.user.groups).toContain(created.ok && created.user.gid);
        const entry = execFileSync('getent', ['passwd', name], { encoding: 'utf8' }).trim().split(':');
        // A system account (uid below the first ordinary one), no login shell, no home made.
        expect(Number(entry[2])).toBeLessThan(1000);
        expect(entry[6]).toBe('/usr/sbin/nologin');
        expect(existsSync(entry[5] ?? '/nonexistent')).toBe(false);
        // Found, not created, the next time.
        const again = await serviceUser(temp, { isRoot: true, name });
        expect(again).toMatchObject({ ok: true, user: { name } });
        expect(again.ok && again.user.created).toBeFalsy();

        const closed = path.join(temp, 'closed');
        await mkdir(closed, { mode: 0o700 });
        await chmod(closed, 0o700);
        const refused = await serviceUser(path.join(closed, 'data'), { isRoot: true, name });
        expect(refused).toEqual({
          ok: false,
          reason: `the system user "${name}" that runs PostgreSQL for root cannot reach DATA_DIR ${closed}/data (${closed} is closed to it): set DATA_DIR to a folder it can reach (e.g. DATA_DIR=/var/lib/studyhall), or LOCALBASE_ENGINE=pglite`,
        });
      } finally {
        execFileSync('userdel', [name], { stdio: 'ignore' });
        try {
          execFileSync('groupdel', [name], { stdio: 'ignore' });
        } catch {
          // userdel removed the user's own group already.
        }
      }
    },
  );
});
