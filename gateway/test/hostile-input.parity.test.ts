// Input the database would refuse, through the gateway against a real localbase: each is a 4xx that
// says what to fix, nothing is half-written, and a year of a student's data fits in one backup.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_BODY_LIMIT_BYTES } from '#contracts/http-limits.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { BODY_LIMITS } from '../src/security/body-limits.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let ada: { token: string; userId: string };

async function post(url: string, payload: unknown, token?: string) {
  return gateway.app.inject({
    method: 'POST',
    url,
    payload: payload as object,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}
async function backupCount(userId: string): Promise<number> {
  const { rows } = await localbase.database.pool.query(
    'select count(*)::int as n from public.user_backups where user_id = $1',
    [userId],
  );
  return (rows[0] as { n: number }).n;
}

async function signUp(name: string) {
  const response = await post('/__auth/signup', { username: `${name}@example.com`, password: `${name}-password-1` });
  expect(response.statusCode, response.body).toBe(201);
  return { token: response.json().session.access_token as string, userId: response.json().user.id as string };
}

/** What a student's app holds after a year of daily study: sessions, tasks, subjects, settings. */
function aYearOfStudy(): Record<string, unknown> {
  const subjects = Array.from({ length: 12 }, (_, index) => ({
    id: `subject-${index}`,
    name: `Subject ${index}`,
    color: '#3366ff',
    targetMinutesPerWeek: 300,
  }));
  const sessions = [];
  for (let day = 0; day < 365; day++) {
    for (let session = 0; session < 6; session++) {
      const started = Date.UTC(2025, 0, 1) + day * 86_400_000 + session * 3_600_000;
      sessions.push({
        id: `${day}-${session}-3f2a9c1e-5b7d-4e8f-a0b1-c2d3e4f5a6b7`,
        subjectId: `subject-${(day + session) % 12}`,
        taskId: `task-${(day * 6 + session) % 400}`,
        startedAt: new Date(started).toISOString(),
        endedAt: new Date(started + 45 * 60_000).toISOString(),
        minutes: 45,
        attempts: { correct: 12, incorrect: 3, skipped: 1 },
        note: 'Worked through the exercises of the chapter and reviewed the mistakes.',
      });
    }
  }
  const tasks = Array.from({ length: 400 }, (_, index) => ({
    id: `task-${index}`,
    title: `Task ${index}: read, summarise, practise`,
    subjectId: `subject-${index % 12}`,
    done: index % 3 === 0,
  }));
  return {
    version: 3,
    subjects,
    sessions,
    tasks,
    settings: { dayOffsetHours: 4, theme: 'dark', focusMinutes: 45, breakMinutes: 10 },
  };
}

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
    // Deadlines are proven in deadlines.test.ts; here a busy test machine must not turn a slow
    // password hash into a 504.
    ...RELAXED_DEADLINES,
  });
  ada = await signUp('ada');
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

describe('e-mail addresses', () => {
  it('refuses a 300-character e-mail with 400 on signup, login and check, before the backend sees it', async () => {
    const long = `${'a'.repeat(64)}@${'b'.repeat(231)}.com`;
    expect(long.length).toBe(300);
    for (const url of ['/__auth/signup', '/__auth/login', '/__auth/check']) {
      const response = await post(url, { username: long, password: 'long-enough-1' });
      expect(response.statusCode, url).toBe(400);
      expect(response.json().error).toBe('invalid_request');
      expect(response.json().message).toContain('254');
    }
  });

  it('refuses an e-mail with a NUL character', async () => {
    const response = await post('/__auth/signup', { username: 'nul\u0000@example.com', password: 'long-enough-1' });
    expect(response.statusCode).toBe(400);
  });
});

describe('backups', () => {
  it.each([
    ['a NUL in a value', { note: 'before\u0000after' }, 'note'],
    ['a NUL in a key', { 'bad\u0000key': 1 }, 'bad\u0000key'],
    ['a NUL deep inside', { sessions: [{ id: 1, tags: ['ok', 'x\u0000'] }] }, 'sessions.0.tags.1'],
    ['an unpaired surrogate', { note: 'half \uD83D of an emoji' }, 'note'],
  ])('refuses %s with 400 naming where, and stores nothing', async (_name, payload, where) => {
    const before = await backupCount(ada.userId);
    for (const url of ['/__auth/backup', '/__auth/snapshot', '/__auth/import']) {
      const response = await post(url, { payload }, ada.token);
      expect(response.statusCode, url).toBe(400);
      expect(response.json().message).toContain(where);
    }
    expect(await backupCount(ada.userId)).toBe(before);
  });

  it('refuses an app_version the column cannot hold', async () => {
    const response = await post('/__auth/backup', { payload: { a: 1 }, app_version: 'v'.repeat(65) }, ada.token);
    expect(response.statusCode).toBe(400);
  });

  it('stores a year of daily study as one backup, and restores it whole', async () => {
    const payload = aYearOfStudy();
    const size = Buffer.byteLength(JSON.stringify({ payload }));
    expect(size).toBeLessThan(BODY_LIMITS.backup);
    const stored = await post('/__auth/backup', { payload }, ada.token);
    expect(stored.statusCode, stored.body.slice(0, 300)).toBe(201);
    const best = await gateway.app.inject({
      url: '/__auth/backup/latest',
      headers: { authorization: `Bearer ${ada.token}` },
    });
    expect(best.json().backup.payload).toEqual(payload);
  }, 60_000);

  it('accepts a backup just under the 8 MiB limit end to end', async () => {
    // The gateway's limit must fit in what localbase takes, or this body would die downstream.
    expect(BODY_LIMITS.backup).toBeLessThanOrEqual(JSON_BODY_LIMIT_BYTES);
    const payload = { blob: 'x'.repeat(BODY_LIMITS.backup - 64) };
    const response = await post('/__auth/backup', { payload }, ada.token);
    expect(response.statusCode, response.body.slice(0, 300)).toBe(201);
  }, 60_000);
});

describe('profiles', () => {
  it('answers 409 handle_taken when another student holds the handle, and changes nothing', async () => {
    const bea = await signUp('bea');
    const response = await post('/__auth/profile', { handle: 'ada', display_name: 'Not Ada' }, bea.token);
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ error: 'handle_taken', backend_code: 'P0011' });
    const profile = await gateway.app.inject({
      url: '/__auth/profile',
      headers: { authorization: `Bearer ${bea.token}` },
    });
    expect(profile.json().profile).toMatchObject({ handle: 'bea', display_name: null });
  });

  it.each([
    ['a display name with a NUL', { display_name: 'Ada\u0000' }],
    ['a display name over 80 characters', { display_name: 'A'.repeat(81) }],
    ['an avatar URL over 2048 characters', { avatar_url: `https://example.com/${'a'.repeat(2048)}` }],
    ['profile data with a NUL', { profile_data: { bio: '\u0000' } }],
    ['profile data with an unpaired surrogate key', { profile_data: { ['\uDC00']: 1 } }],
  ])('refuses %s with 400', async (_name, body) => {
    const response = await post('/__auth/profile', body, ada.token);
    expect(response.statusCode).toBe(400);
    expect(response.json().error).toBe('invalid_request');
  });
});
