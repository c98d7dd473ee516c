// The list of logged-out admin sessions: kept until each cookie would have expired, reloaded from
// DATA_DIR at boot (with ADMIN_SECRET), and refusing to start on a file that is not such a list.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  accountSubject,
  ADMIN_COOKIE_MAX_AGE_S,
  createAdminGate,
  endAccountSessions,
  endAdminSession,
  readAdminCookie,
  signAdminCookie,
} from '../src/admin/admin-cookie.ts';
import { EndedAdminSessions } from '../src/admin/ended-sessions.ts';
import { makeTempDir } from './helpers.ts';

const secret = 'ended-sessions-test-secret-32ch!';
const temps: { remove(): Promise<void> }[] = [];

afterEach(async () => {
  for (const temp of temps.splice(0)) await temp.remove();
});

async function listFile(): Promise<string> {
  const temp = await makeTempDir('ended-sessions');
  temps.push(temp);
  return path.join(temp.dir, 'data', 'admin-ended-sessions.json');
}

describe('ended admin sessions', () => {
  it('refuses a logged-out value after a restart, keeps other sessions, and never stores the value itself', async () => {
    const file = await listFile();
    const gate = createAdminGate({ enabled: true, secret, serviceRoleKey: 'service', endedSessionsFile: file });
    const ended = signAdminCookie(gate, 'owner', 1_000_000);
    const kept = signAdminCookie(gate, 'other', 1_000_000);
    const session = await readAdminCookie(gate, ended, 1_000_100);
    if (!session) throw new Error('the cookie should be valid');
    await endAdminSession(gate, ended, session, 1_000_100);
    expect(await readAdminCookie(gate, ended, 1_000_200)).toBeUndefined();
    expect((await readAdminCookie(gate, kept, 1_000_200))?.subject).toBe('other');
    expect(await readFile(file, 'utf8')).not.toContain(ended.split('.')[0]);

    const restarted = createAdminGate({ enabled: true, secret, serviceRoleKey: 'service', endedSessionsFile: file });
    expect(await readAdminCookie(restarted, ended, 1_000_200)).toBeUndefined();
    expect((await readAdminCookie(restarted, kept, 1_000_200))?.subject).toBe('other');
  });

  it('ends every earlier session of an account, keeps later logins and other accounts, across a restart', async () => {
    const file = await listFile();
    const gate = createAdminGate({ enabled: true, secret, serviceRoleKey: 'service', endedSessionsFile: file });
    const ada = accountSubject('00000000-0000-4000-8000-00000000000a', 'ada@example.test');
    const bo = accountSubject('00000000-0000-4000-8000-00000000000b', 'bo@example.test');
    const adaEarlier = signAdminCookie(gate, ada, 1_000_000);
    const boEarlier = signAdminCookie(gate, bo, 1_000_000);
    await endAccountSessions(gate, '00000000-0000-4000-8000-00000000000a', 1_000_050);
    const adaLater = signAdminCookie(gate, ada, 1_000_051);
    expect(await readAdminCookie(gate, adaEarlier, 1_000_100)).toBeUndefined();
    expect((await readAdminCookie(gate, adaLater, 1_000_100))?.subject).toBe(ada);
    expect((await readAdminCookie(gate, boEarlier, 1_000_100))?.subject).toBe(bo);

    const restarted = createAdminGate({ enabled: true, secret, serviceRoleKey: 'service', endedSessionsFile: file });
    expect(await readAdminCookie(restarted, adaEarlier, 1_000_100)).toBeUndefined();
    expect((await readAdminCookie(restarted, adaLater, 1_000_100))?.subject).toBe(ada);
  });

  it('forgets entries once their cookie has expired anyway', async () => {
    const file = await listFile();
    const list = new EndedAdminSessions(file);
    await list.end('first-value', 1_000_000 + ADMIN_COOKIE_MAX_AGE_S, 1_000_000);
    expect(list.has('first-value', 1_000_000 + ADMIN_COOKIE_MAX_AGE_S)).toBe(true);
    await list.end('second-value', 2_000_000 + ADMIN_COOKIE_MAX_AGE_S, 2_000_000);
    expect(list.size).toBe(1);
    expect(new EndedAdminSessions(file).size).toBe(1);
  });

  it('keeps the list in memory only without ADMIN_SECRET, and refuses a file that is not a list', async () => {
    const file = await listFile();
    const gate = createAdminGate({
      enabled: true,
      secret: undefined,
      serviceRoleKey: 'service',
      endedSessionsFile: file,
    });
    const value = signAdminCookie(gate, 'owner');
    const session = await readAdminCookie(gate, value);
    if (!session) throw new Error('the cookie should be valid');
    await endAdminSession(gate, value, session);
    expect(await readAdminCookie(gate, value)).toBeUndefined();
    await expect(readFile(file, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    await writeFile(path.join(path.dirname(file), '..', 'garbage.json'), '{"ended": "everything"}');
    expect(() => new EndedAdminSessions(path.join(path.dirname(file), '..', 'garbage.json'))).toThrow(
      /not a list of ended admin sessions/,
    );
  });
});
