// Which sessions prove an ADMIN_EMAIL address by themselves (login/mailbox-proof.ts): the methods
// of a session started by a mailed link, only where an address changes by mail alone (localbase,
// or a hosted GoTrue whose settings say mailer_autoconfirm is off), and never `otp` on a hosted
// backend, where it may be an SMS code.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { ACCOUNT_LOGIN_SCRIPT, APP_AUTH_STORAGE_KEY, loginBody } from '../src/admin/login/login-page.ts';
import { BackendError, type BackendClient } from '../src/backend/backend-client.ts';
import { mailboxProof, sessionMethods } from '../src/admin/login/mailbox-proof.ts';

function tokenWith(claims: object): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part(claims)}.signature`;
}

const session = (...methods: string[]) =>
  tokenWith({ sub: 'u', amr: methods.map((method) => ({ method, timestamp: 1 })) });

/** A hosted backend whose /auth/v1/settings answers `settings` (or fails with `status`). */
function hosted(settings: unknown, status = 200): BackendClient & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    request: async (path: string) => {
      asked.push(path);
      if (status !== 200) throw new BackendError(status, 'not_found', 'no settings');
      return { status, body: settings, headers: {} };
    },
  } as unknown as BackendClient & { asked: string[] };
}

describe('sessionMethods', () => {
  it('reads the amr methods, and nothing from a token without them or not a token at all', () => {
    expect(sessionMethods(session('recovery', 'password'))).toEqual(['recovery', 'password']);
    expect(sessionMethods(tokenWith({ sub: 'u' }))).toEqual([]);
    expect(sessionMethods('not-a-token')).toEqual([]);
    expect(sessionMethods('a.!!!.c')).toEqual([]);
    expect(sessionMethods(tokenWith({ amr: 'recovery' }))).toEqual([]);
  });
});

describe('mailboxProof', () => {
  it('on localbase: recovery, magic link or e-mail code, invite and address-change sessions prove it', async () => {
    const backend = hosted({});
    for (const method of ['recovery', 'otp', 'magiclink', 'invite', 'email_change'])
      expect(await mailboxProof(backend, session(method), true)).toBe(method);
    expect(backend.asked).toEqual([]);
  });

  it('never a password, refresh or anonymous session', async () => {
    for (const method of ['password', 'token_refresh', 'anonymous', 'oauth', 'totp'])
      expect(await mailboxProof(hosted({ mailer_autoconfirm: false }), session(method), true)).toBeUndefined();
    expect(await mailboxProof(hosted({}), tokenWith({ sub: 'u' }), true)).toBeUndefined();
  });

  it('on a hosted backend: only when its settings say mailer_autoconfirm is false', async () => {
    expect(await mailboxProof(hosted({ mailer_autoconfirm: false }), session('recovery'), false)).toBe('recovery');
    expect(await mailboxProof(hosted({ mailer_autoconfirm: false }), session('email_change'), false)).toBe(
      'email_change',
    );
    expect(await mailboxProof(hosted({ mailer_autoconfirm: true }), session('recovery'), false)).toBeUndefined();
    expect(await mailboxProof(hosted({}), session('recovery'), false)).toBeUndefined();
    expect(await mailboxProof(hosted({ mailer_autoconfirm: 'false' }), session('recovery'), false)).toBeUndefined();
    expect(await mailboxProof(hosted(null, 404), session('recovery'), false)).toBeUndefined();
    const asked = hosted({ mailer_autoconfirm: false });
    await mailboxProof(asked, session('recovery'), false);
    expect(asked.asked).toEqual(['/auth/v1/settings']);
  });

  it('on a hosted backend `otp` proves nothing: it is also an SMS code there', async () => {
    expect(await mailboxProof(hosted({ mailer_autoconfirm: false }), session('otp'), false)).toBeUndefined();
    expect(await mailboxProof(hosted({ mailer_autoconfirm: false }), session('magiclink'), false)).toBeUndefined();
  });
});

describe("the unlock page's app-session button", () => {
  it('reads the session where the web app keeps it, and starts hidden (shown only when there is one)', () => {
    const webKey = /AUTH_STORAGE_KEY = '([^']+)'/.exec(
      readFileSync(path.join(repoRoot, 'web', 'src', 'lib', 'session-storage.ts'), 'utf8'),
    )?.[1];
    expect(webKey).toBe(APP_AUTH_STORAGE_KEY);
    expect(ACCOUNT_LOGIN_SCRIPT).toContain(`localStorage.getItem('${APP_AUTH_STORAGE_KEY}')`);
    const page = String(loginBody({ next: '/__admin/verify', secretConfigured: false, allowedEmails: 1 }));
    expect(page).toMatch(/<button type="button" id="app-session" hidden>/);
  });
});
