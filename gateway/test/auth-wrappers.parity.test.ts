// The auth wrappers and the leaderboard against a real localbase (tools/testing/localbase-stack.ts):
// a student signs up through the gateway, has every satellite row, logs in, hydrates, stores and
// restores backups, sets an avatar served from storage; another student never reads them.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';

let localbase: Localbase;
let gateway: TestGateway;

// The smallest valid PNG: 1x1, transparent.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

interface Student {
  email: string;
  password: string;
  token: string;
  userId: string;
}

const students: Record<string, Student> = {};

async function post(url: string, payload: unknown, token?: string) {
  return gateway.app.inject({
    method: 'POST',
    url,
    payload: payload as object,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}
async function get(url: string, token?: string) {
  return gateway.app.inject({ url, headers: token ? { authorization: `Bearer ${token}` } : {} });
}
async function ownerQuery<T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  return (await localbase.database.pool.query(sql, params)).rows as T[];
}

async function signUp(name: string): Promise<Student> {
  const email = `${name}@example.com`;
  const password = `${name}-password-1`;
  const response = await post('/__auth/signup', { username: email, password });
  expect(response.statusCode, response.body).toBe(201);
  const body = response.json();
  expect(body.bootstrap.warnings).toEqual([]);
  const student = { email, password, token: body.session.access_token, userId: body.user.id };
  students[name] = student;
  return student;
}

beforeAll(async () => {
  localbase = await startLocalbaseStack();
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    // Deadlines are proven in deadlines.test.ts; here a busy test machine must not turn a slow
    // password hash into a 504.
    ...RELAXED_DEADLINES,
  });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await localbase?.close();
});

describe('signup, login, check', () => {
  it('signs a student up with a session and every satellite row', async () => {
    const ada = await signUp('ada');
    const [row] = await ownerQuery<Record<string, boolean>>(
      `select exists(select 1 from public.users where id = $1) as users,
              exists(select 1 from public.user_profiles where user_id = $1) as user_profiles,
              exists(select 1 from public.user_settings where user_id = $1) as user_settings,
              exists(select 1 from public.user_stats_summary where user_id = $1) as user_stats_summary`,
      [ada.userId],
    );
    expect(row).toEqual({ users: true, user_profiles: true, user_settings: true, user_stats_summary: true });
    // The enrollment follows from the users row; the handle is proposed from the e-mail and lands
    // in both places a handle is kept: the handle column and profile_data.community_handle.
    const [community] = await ownerQuery<{
      privacy: Record<string, boolean>;
      handle: string;
      community_handle: string;
    }>(
      `select e.privacy, p.handle, p.profile_data ->> 'community_handle' as community_handle
         from public.community_enrollments e join public.user_profiles p using (user_id)
        where e.user_id = $1`,
      [ada.userId],
    );
    expect(community?.privacy.shareExactTime).toBe(true);
    expect(community?.handle).toBe('ada');
    expect(community?.community_handle).toBe('ada');
  });

  it('signs in a sign-up sent again with the same password (its first answer lost), never one with another', async () => {
    const cy = await signUp('cy');
    const again = await post('/__auth/signup', { username: cy.email, password: cy.password });
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json().user.id).toBe(cy.userId);
    expect(again.json().session.access_token).not.toBe(cy.token);
    const other = await post('/__auth/signup', { username: cy.email, password: 'a-different-pass-9' });
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ error: 'email_taken' });
    expect(other.json().session).toBeUndefined();
  });

  it('refuses a second signup with the same e-mail (409), a short or long password and a bad e-mail (400)', async () => {
    expect(
      (await post('/__auth/signup', { username: 'ADA@example.com', password: 'another-pass' })).json(),
    ).toMatchObject({ error: 'email_taken' });
    for (const body of [
      { username: 'bee@example.com', password: 'seven77' },
      { username: 'bee@example.com', password: 'é'.repeat(37) }, // 74 bytes
      { username: 'not-an-email', password: 'long-enough' },
      { password: 'long-enough' },
    ]) {
      const response = await post('/__auth/signup', body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().error).toBe('invalid_request');
    }
  });

  it("refuses a common password with 400 weak_password and the backend's reasons", async () => {
    const response = await post('/__auth/signup', { username: 'cy@example.com', password: 'password' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'weak_password', reasons: ['pwned'] });
  });

  it('logs in with the password grant and recreates a missing satellite row', async () => {
    const ada = students.ada as Student;
    await ownerQuery('delete from public.user_settings where user_id = $1', [ada.userId]);
    const response = await post('/__auth/login', { username: ada.email, password: ada.password });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.session.access_token).toEqual(expect.any(String));
    expect(body.bootstrap.created).toEqual(['user_settings']);
    ada.token = body.session.access_token;
  });

  it('refuses a wrong password with 401 invalid_credentials', async () => {
    const response = await post('/__auth/login', { username: 'ada@example.com', password: 'wrong-password' });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('invalid_credentials');
  });

  it('checks whether an e-mail is registered through the admin API', async () => {
    expect((await post('/__auth/check', { username: 'Ada@Example.com' })).json()).toEqual({
      ok: true,
      registered: true,
    });
    expect((await post('/__auth/check', { username: 'nobody@example.com' })).json()).toEqual({
      ok: true,
      registered: false,
    });
    expect((await post('/__auth/check', { username: 'nope' })).statusCode).toBe(400);
  });
});

describe('bearer-token wrappers', () => {
  it('GET /__auth/bootstrap returns the profile bundle', async () => {
    const ada = students.ada as Student;
    const response = await get('/__auth/bootstrap', ada.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({
      ok: true,
      user: { id: ada.userId, email: ada.email },
      account: { id: ada.userId, username: ada.email },
      profile: { user_id: ada.userId },
      settings: { user_id: ada.userId, day_offset_hours: 0 },
      roles: [],
      stats: { user_id: ada.userId, total_minutes: 0 },
      latest_backup: null,
      created: [],
    });
  });

  it("answers 401 for a banned student's token and refuses her login", async () => {
    const cleo = await signUp('cleo');
    expect((await get('/__auth/bootstrap', cleo.token)).statusCode).toBe(200);
    const ban = await fetch(`${localbase.url}/auth/v1/admin/users/${cleo.userId}`, {
      method: 'PUT',
      headers: {
        apikey: localbase.serviceRoleKey,
        authorization: `Bearer ${localbase.serviceRoleKey}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ ban_duration: '24h' }),
    });
    expect(ban.status).toBe(200);
    const bootstrap = await get('/__auth/bootstrap', cleo.token);
    expect(bootstrap.statusCode, bootstrap.body).toBe(401);
    expect(bootstrap.json().error).toBe('invalid_token');
    const login = await post('/__auth/login', { username: cleo.email, password: cleo.password });
    expect(login.statusCode, login.body).toBeGreaterThanOrEqual(400);
    expect(login.json().session).toBeUndefined();
  });

  it('refuses every bearer route without a token (401 missing_token) and with a forged one (401 invalid_token)', async () => {
    const forged = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject((students.ada as Student).userId)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-secret-not-the-secret-00'));
    const routes: Array<['GET' | 'POST', string]> = [
      ['GET', '/__auth/bootstrap'],
      ['GET', '/__auth/backup/best'],
      ['GET', '/__auth/backup/latest'],
      ['POST', '/__auth/backup'],
      ['POST', '/__auth/snapshot'],
      ['POST', '/__auth/restore-best-backup'],
      ['POST', '/__auth/import'],
      ['GET', '/__auth/profile'],
      ['POST', '/__auth/profile'],
      ['POST', '/__leaderboard'],
    ];
    for (const [method, url] of routes) {
      const missing = await gateway.app.inject({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(missing.statusCode, `${method} ${url}`).toBe(401);
      expect(missing.json().error).toBe('missing_token');
    }
    for (const [method, url] of [
      ['GET', '/__auth/bootstrap'],
      ['GET', '/__auth/backup/best'],
      ['GET', '/__auth/profile'],
    ] as const) {
      const response = await gateway.app.inject({ method, url, headers: { authorization: `Bearer ${forged}` } });
      expect(response.statusCode, url).toBe(401);
      expect(response.json().error).toBe('invalid_token');
    }
  });
});

describe('backups', () => {
  const rich = {
    sessions: [{ minutes: 25 }, { minutes: 50 }, { minutes: 10 }],
    tasks: [{ title: 'Read' }],
    settings: { theme: 'dark' },
  };
  const poor = { sessions: [{ minutes: 5 }] };

  it('answers 200 with backup null before any backup exists (an empty answer, not an error)', async () => {
    const ada = students.ada as Student;
    for (const url of ['/__auth/backup/best', '/__auth/backup/latest']) {
      const response = await get(url, ada.token);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ ok: true, backup: null });
    }
    // Restoring is an action: with nothing to restore it is refused.
    const restore = await post('/__auth/restore-best-backup', {}, ada.token);
    expect(restore.statusCode).toBe(404);
    expect(restore.json().error).toBe('no_backup');
  });

  it('stores backups and picks the richest as best, the newest as latest', async () => {
    const ada = students.ada as Student;
    const first = await post('/__auth/backup', { payload: rich, app_version: '1.0.0' }, ada.token);
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json().backup).toMatchObject({ source: 'manual', richness: 5, app_version: '1.0.0' });
    const second = await post('/__auth/backup', { payload: poor, source: 'auto' }, ada.token);
    expect(second.json().backup).toMatchObject({ source: 'auto', richness: 1 });

    expect((await get('/__auth/backup/best', ada.token)).json().backup).toMatchObject({
      id: first.json().backup.id,
      payload: rich,
    });
    expect((await get('/__auth/backup/latest', ada.token)).json().backup).toMatchObject({
      id: second.json().backup.id,
      payload: poor,
    });
  });

  it("refuses a backup whose payload is not an object, or whose source is not the caller's to choose", async () => {
    const ada = students.ada as Student;
    for (const body of [{ payload: [1, 2] }, { payload: 'x' }, {}, { payload: {}, source: 'restore' }]) {
      expect((await post('/__auth/backup', body, ada.token)).statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('uploads a snapshot to the private backups bucket and records it', async () => {
    const ada = students.ada as Student;
    const response = await post('/__auth/snapshot', { payload: poor }, ada.token);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json().backup.source).toBe('snapshot');
    expect(response.json().object).toMatch(new RegExp(`^backups/${ada.userId}/snapshots/.+\\.json$`));
    const [object] = await ownerQuery<{ count: string }>(
      "select count(*) from storage.objects where bucket_id = 'backups' and name like $1",
      [`${ada.userId}/snapshots/%`],
    );
    expect(Number(object?.count)).toBe(1);
  });

  it('restores the best backup and records the restore as the newest backup', async () => {
    const ada = students.ada as Student;
    const response = await post('/__auth/restore-best-backup', {}, ada.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      payload: rich,
      restored_from: { richness: 5 },
      backup: { source: 'restore', richness: 5 },
    });
    expect((await get('/__auth/backup/latest', ada.token)).json().backup).toMatchObject({
      source: 'restore',
      payload: rich,
    });
  });

  it('imports a payload as a backup with source import', async () => {
    const ada = students.ada as Student;
    const response = await post('/__auth/import', { payload: { tasks: [1, 2, 3, 4, 5, 6] } }, ada.token);
    expect(response.json().backup).toMatchObject({ source: 'import', richness: 6 });
    expect((await get('/__auth/backup/best', ada.token)).json().backup.richness).toBe(6);
  });

  it("never lets another student's token read the first student's backups", async () => {
    const ada = students.ada as Student;
    const bob = await signUp('bob');
    for (const url of ['/__auth/backup/best', '/__auth/backup/latest']) {
      const response = await get(url, bob.token);
      expect(response.statusCode).toBe(200);
      expect(response.json().backup).toBeNull();
    }
    // Straight through the proxy, asking for ada's rows by her id: RLS returns nothing.
    const direct = await gateway.app.inject({
      url: `/__backend/rest/v1/user_backups?select=id,payload&user_id=eq.${ada.userId}`,
      headers: { authorization: `Bearer ${bob.token}`, apikey: localbase.anonKey },
    });
    expect(direct.statusCode).toBe(200);
    expect(direct.json()).toEqual([]);
    // And bob cannot write a backup into ada's account by naming her.
    const forged = await gateway.app.inject({
      method: 'POST',
      url: '/__backend/rest/v1/user_backups',
      headers: { authorization: `Bearer ${bob.token}`, apikey: localbase.anonKey },
      payload: { user_id: ada.userId, payload: { stolen: true } },
    });
    expect(forged.statusCode).toBe(403);
  });
});

describe('profile and avatar', () => {
  it('reads the profile', async () => {
    const ada = students.ada as Student;
    const response = await get('/__auth/profile', ada.token);
    expect(response.json()).toMatchObject({ ok: true, profile: { user_id: ada.userId, avatar_url: null } });
  });

  it('stores an avatar data URL in the avatars bucket and serves it from storage', async () => {
    const ada = students.ada as Student;
    const response = await post(
      '/__auth/profile',
      {
        display_name: 'Ada L.',
        avatar_url: `data:image/png;base64,${PNG.toString('base64')}`,
        profile_data: { motto: 'focus' },
      },
      ada.token,
    );
    expect(response.statusCode, response.body).toBe(200);
    const profile = response.json().profile;
    expect(profile.display_name).toBe('Ada L.');
    expect(profile.profile_data).toMatchObject({ motto: 'focus' });
    expect(profile.avatar_url).toMatch(
      new RegExp(`^/__backend/storage/v1/object/public/avatars/${ada.userId}/avatar-\\d+\\.png$`),
    );
    const served = await gateway.app.inject({ url: profile.avatar_url });
    expect(served.statusCode).toBe(200);
    expect(served.headers['content-type']).toContain('image/png');
    expect(served.rawPayload.equals(PNG)).toBe(true);
  });

  it('refuses an avatar of the wrong type, with mismatched bytes, or over 2 MB', async () => {
    const ada = students.ada as Student;
    const cases: Array<[string, number, string]> = [
      [`data:text/html;base64,${Buffer.from('<script>').toString('base64')}`, 415, 'unsupported_avatar_type'],
      [`data:image/png;base64,${Buffer.from('GIF89a not a png').toString('base64')}`, 400, 'invalid_avatar'],
      [
        `data:image/png;base64,${Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]).toString('base64')}`,
        413,
        'avatar_too_large',
      ],
    ];
    for (const [avatar, status, code] of cases) {
      const response = await post('/__auth/profile', { avatar_url: avatar }, ada.token);
      expect(response.statusCode, code).toBe(status);
      expect(response.json().error).toBe(code);
    }
  });

  it('sets a handle in the column and in profile_data.community_handle', async () => {
    const ada = students.ada as Student;
    const response = await post('/__auth/profile', { handle: 'ada_l' }, ada.token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json().profile).toMatchObject({
      handle: 'ada_l',
      profile_data: { community_handle: 'ada_l', motto: 'focus' },
    });
    // Logging in again bootstraps what is missing but never replaces a chosen handle.
    const login = await post('/__auth/login', { username: ada.email, password: ada.password });
    expect(login.json().bootstrap).toMatchObject({ created: [], handle: 'ada_l' });
    expect((await get('/__auth/profile', ada.token)).json().profile.handle).toBe('ada_l');
  });
});

describe('POST /__leaderboard against localbase', () => {
  it("ranks the period by minutes + correct answers and gives the caller's own rank", async () => {
    const ada = students.ada as Student;
    const today = new Date().toISOString().slice(0, 10);
    await ownerQuery(
      'insert into public.daily_user_stats (user_id, study_day, minutes, correct) values ($1, $2, 30, 5)',
      [ada.userId, today],
    );
    await ownerQuery(
      'update public.user_stats_summary set total_minutes = 300, total_correct = 40 where user_id = $1',
      [ada.userId],
    );
    const day = (await post('/__leaderboard', { period: 'day' }, ada.token)).json();
    expect(day).toMatchObject({
      ok: true,
      period: 'day',
      since: today,
      me: { user_id: ada.userId, rank: 1, points: 35, minutes: 30, correct: 5, handle: 'ada_l' },
    });
    expect(day.entries[0]).toMatchObject({ user_id: ada.userId, is_me: true, points: 35 });
    const all = (await post('/__leaderboard', { period: 'all' }, ada.token)).json();
    expect(all.me).toMatchObject({ rank: 1, points: 340 });
  });

  it('gives a student with no study time no rank and zero points', async () => {
    const bob = students.bob as Student;
    const board = (await post('/__leaderboard', { period: 'week' }, bob.token)).json();
    expect(board.me).toMatchObject({ user_id: bob.userId, rank: null, points: 0 });
  });

  it('shows another student only while she shares study time and question counts', async () => {
    const [ada, bob] = [students.ada as Student, students.bob as Student];
    const sharing = async (privacy: Record<string, boolean>) => {
      await ownerQuery('update public.community_enrollments set privacy = privacy || $2::jsonb where user_id = $1', [
        ada.userId,
        JSON.stringify(privacy),
      ]);
      return (
        (await post('/__leaderboard', { period: 'week' }, bob.token)).json().entries as Array<{ user_id: string }>
      ).filter((entry) => entry.user_id === ada.userId);
    };
    // The default switches keep question counts private, so ada is not on bob's board ...
    expect(await sharing({})).toEqual([]);
    // ... until she shares them: the leaderboard read policies then let bob see her points.
    expect(await sharing({ shareQuestionCounts: true })).toEqual([
      expect.objectContaining({ is_me: false, points: 35 }),
    ]);
    expect(await sharing({ stealthMode: true })).toEqual([]);
    expect(await sharing({ stealthMode: false })).toHaveLength(1);
  });

  it('refuses an unknown period with 400', async () => {
    const response = await post('/__leaderboard', { period: 'year' }, (students.ada as Student).token);
    expect(response.statusCode).toBe(400);
  });
});

describe('rate limit on signup, login and check (one budget per address)', () => {
  it('answers the 11th signup attempt within a minute from one address with 429 rate_limited and Retry-After', async () => {
    const limited = await startTestGateway({
      backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
      ...RELAXED_DEADLINES,
    });
    try {
      const attempt = (index: number, remoteAddress = '203.0.113.7') =>
        limited.app.inject({
          method: 'POST',
          url: '/__auth/signup',
          remoteAddress,
          payload: { username: `limit${index}@example.com`, password: 'limit-password' },
        });
      for (let index = 1; index <= 10; index++) {
        expect((await attempt(index)).statusCode, `attempt ${index}`).toBe(201);
      }
      const eleventh = await attempt(11);
      expect(eleventh.statusCode).toBe(429);
      expect(eleventh.json()).toMatchObject({ error: 'rate_limited' });
      expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
      // Nothing was created for the refused attempt, and another address is not affected.
      expect(await ownerQuery("select 1 from auth.users where email = 'limit11@example.com'")).toEqual([]);
      expect((await attempt(12, '203.0.113.8')).statusCode).toBe(201);
      // signup, login and check share one budget per address: the same address cannot log in now,
      // the other one can.
      const login = (remoteAddress: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/__auth/login',
          remoteAddress,
          payload: { username: 'limit1@example.com', password: 'limit-password' },
        });
      expect((await login('203.0.113.7')).statusCode).toBe(429);
      expect((await login('203.0.113.8')).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  }, 60_000);
});
