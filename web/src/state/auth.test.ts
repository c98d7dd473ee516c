// @vitest-environment happy-dom
// A sign-in the server ended is told apart from everything else: a refused refresh or a session the
// server no longer knows keeps the student's data open and marks this device signed out (through a
// reload too); a network failure or a server error says nothing about the session; a sign-out she
// chose on another tab takes this one to the welcome screen instead.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

interface Answer {
  data: unknown;
  error: { name: string; status?: number; code?: string; message: string } | null;
}

const auth = vi.hoisted(() => ({
  refresh: [] as Answer[],
  /** What GET /auth/v1/user answers the check: a status, or a failed fetch. */
  user: [] as (number | 'offline')[],
  session: { data: { session: { access_token: 'token' } }, error: null } as Answer,
  localSignOuts: 0,
  listeners: [] as ((event: string) => void)[],
}));

vi.mock('../lib/supabase.ts', () => ({
  supabase: async () => ({
    auth: {
      refreshSession: async () => auth.refresh.shift() ?? { data: { session: { access_token: 'fresh' } }, error: null },
      getSession: async () => auth.session,
      signOut: async () => {
        auth.localSignOuts++;
        for (const listener of auth.listeners) listener('SIGNED_OUT');
        return { error: null };
      },
      onAuthStateChange: (listener: (event: string) => void) => auth.listeners.push(listener),
    },
  }),
}));

vi.mock('../lib/client-config.ts', () => ({
  clientConfig: async () => ({ backend_url: '/__backend', anon_key: 'anon' }),
}));

const asked: string[] = [];
vi.stubGlobal('fetch', async (url: string) => {
  asked.push(url);
  const answer = auth.user.shift() ?? 200;
  if (answer === 'offline') throw new TypeError('Failed to fetch');
  return new Response('{}', { status: answer });
});

const { accessToken, checkSession, watchSession } = await import('./auth.ts');
const { account, sessionEnded } = await import('./signals.ts');
const { readEndedSession, rememberSignOutByChoice, forgetSessionMarks } = await import('../lib/session-storage.ts');

const ADA = { userId: 'u-ada', email: 'ada@example.com' };
const refused = (code: string, status = 400): Answer => ({
  data: { session: null },
  error: { name: 'AuthApiError', status, code, message: 'Invalid Refresh Token: Refresh Token Not Found' },
});

beforeEach(() => {
  localStorage.setItem(
    'studyhall-auth',
    JSON.stringify({ access_token: 'token', expires_at: Date.now() / 1000 + 3600, user: { id: ADA.userId } }),
  );
  asked.length = 0;
  account.value = ADA;
  sessionEnded.value = false;
  auth.refresh = [];
  auth.user = [];
  auth.localSignOuts = 0;
  forgetSessionMarks();
});
afterEach(() => vi.useRealTimers());

describe('a sign-in the server ended', () => {
  it('is a refused refresh: the data stays open, the device is marked signed out, the session forgotten', async () => {
    auth.refresh.push(refused('refresh_token_not_found'));
    expect(await accessToken(true)).toBeNull();
    expect(sessionEnded.value).toBe(true);
    expect(account.value).toEqual(ADA);
    expect(readEndedSession()).toEqual(ADA);
    expect(auth.localSignOuts).toBe(1);
    // Nothing more is asked of the server for a token once it said no.
    expect(await accessToken(true)).toBeNull();
    expect(await accessToken()).toBeNull();
  });

  it('is a banned account’s refresh too', async () => {
    auth.refresh.push(refused('user_banned'));
    expect(await accessToken(true)).toBeNull();
    expect(sessionEnded.value).toBe(true);
  });

  it('is found by the check: the server no longer knows the session, and a refresh is refused', async () => {
    auth.user.push(403);
    auth.refresh.push(refused('refresh_token_not_found'));
    await checkSession(true);
    expect(asked).toEqual(['/__backend/auth/v1/user']);
    expect(sessionEnded.value).toBe(true);
    expect(account.value).toEqual(ADA);
  });

  it('is not an access token that merely expired: the refresh works and nothing changes', async () => {
    auth.user.push(403);
    await checkSession(true);
    expect(sessionEnded.value).toBe(false);
  });

  it('is asked at most every 30 s unless something hints at it', async () => {
    await checkSession(true);
    await checkSession();
    expect(asked).toHaveLength(1);
    await checkSession(true);
    expect(asked).toHaveLength(2);
  });

  it('is not a network failure or a server error', async () => {
    auth.refresh.push({
      data: { session: null },
      error: { name: 'AuthRetryableFetchError', message: 'Failed to fetch' },
    });
    await expect(accessToken(true)).rejects.toMatchObject({ code: 'offline' });
    auth.refresh.push({ data: { session: null }, error: { name: 'AuthApiError', status: 500, message: 'boom' } });
    await expect(accessToken(true)).rejects.toMatchObject({ status: 500 });
    for (const answer of ['offline', 500] as const) {
      auth.user.push(answer);
      await checkSession(true);
    }
    expect(asked).toHaveLength(2);
    expect(sessionEnded.value).toBe(false);
    expect(readEndedSession()).toBeNull();
  });
});

describe('a sign-out supabase-js reports', () => {
  it('that the server caused (an expired token it would not refresh) marks this device after a moment', async () => {
    vi.useFakeTimers();
    await watchSession();
    for (const listener of auth.listeners) listener('SIGNED_OUT');
    expect(sessionEnded.value).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sessionEnded.value).toBe(true);
    expect(account.value).toEqual(ADA);
  });

  it('that the student chose on another tab takes this tab to the welcome screen', async () => {
    vi.useFakeTimers();
    await watchSession();
    rememberSignOutByChoice(ADA.userId);
    for (const listener of auth.listeners) listener('SIGNED_OUT');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(account.value).toBeNull();
    expect(sessionEnded.value).toBe(false);
    expect(readEndedSession()).toBeNull();
  });

  it('that this tab chose (the account already gone) changes nothing more', async () => {
    vi.useFakeTimers();
    await watchSession();
    for (const listener of auth.listeners) listener('SIGNED_OUT');
    account.value = null;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(sessionEnded.value).toBe(false);
    expect(readEndedSession()).toBeNull();
  });
});
