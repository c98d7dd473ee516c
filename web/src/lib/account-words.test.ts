// The account screens' words: a refused password says why (too short, too common, too long), a
// suspended account says until when in local time and whom to ask, the link's fragment is read into
// a session or a reason, and an auth failure becomes the app's error codes.
import { describe, expect, it } from 'vitest';
import { ApiError } from './api.ts';
import { accountProblem } from './account-words.ts';
import { authLinkProblem, readAuthLink } from './auth-link.ts';
import { passwordSentence, weakPasswordSentence } from './password-words.ts';

describe('weakPasswordSentence', () => {
  it('says too short for `length` and too common for `pwned`, and something useful for anything else', () => {
    expect(weakPasswordSentence(['length'])).toMatch(/^Too short: use at least 8 characters/);
    expect(weakPasswordSentence(['pwned'])).toMatch(/^Too common:/);
    expect(weakPasswordSentence(['characters'])).toMatch(/^Too simple:/);
    expect(weakPasswordSentence(['length', 'pwned'])).toMatch(/^Too short.*Too common/);
    expect(weakPasswordSentence([])).toMatch(/too easy to guess/);
    expect(weakPasswordSentence(undefined)).toMatch(/too easy to guess/);
    expect(weakPasswordSentence(['__proto__', 7])).toMatch(/too easy to guess/);
  });

  it("words the app's own check of the same rule, including a password past 72 bytes", () => {
    expect(passwordSentence('length')).toBe(weakPasswordSentence(['length']));
    expect(passwordSentence('pwned')).toBe(weakPasswordSentence(['pwned']));
    expect(passwordSentence('too_long')).toMatch(/^Too long: .*72 bytes/);
  });
});

describe('readAuthLink', () => {
  it("reads a recovery link's session from the fragment", () => {
    expect(
      readAuthLink('#access_token=a.b.c&expires_in=3600&refresh_token=r1&token_type=bearer&type=recovery'),
    ).toEqual({
      kind: 'session',
      accessToken: 'a.b.c',
      refreshToken: 'r1',
      type: 'recovery',
    });
  });

  it('reads why a link failed, and nothing from an ordinary address', () => {
    expect(
      readAuthLink(
        '#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired',
      ),
    ).toEqual({ kind: 'error', code: 'otp_expired', description: 'Email link is invalid or has expired' });
    expect(readAuthLink('')).toBeNull();
    expect(readAuthLink('#main')).toBeNull();
    expect(readAuthLink('#access_token=only-half')).toBeNull();
    expect(authLinkProblem('otp_expired')).toMatch(/expired or was already used/);
  });
});

describe('accountProblem', () => {
  it('words offline, a backend that is down, a weak password and a wrong current password', () => {
    expect(accountProblem(new ApiError(0, 'offline', 'x'))).toMatch(/cannot be reached.*Nothing was changed/);
    expect(accountProblem(new ApiError(502, 'backend_down', 'x'))).toMatch(/not answering.*Nothing was changed/);
    expect(accountProblem(new ApiError(422, 'weak_password', 'x', { reasons: ['pwned'] }))).toMatch(/^Too common/);
    expect(accountProblem(new ApiError(400, 'invalid_credentials', 'x'))).toBe('Your current password is not right.');
    expect(accountProblem(new ApiError(400, 'invalid_confirmation', 'x'))).toMatch(/Nothing was deleted/);
    expect(accountProblem(new Error('boom'))).toMatch(/Nothing was changed/);
  });

  it('says a suspended account is suspended, until when (with the date, in local time) and whom to ask', () => {
    const until = '2031-03-04T15:30:00.000Z';
    const sentence = accountProblem(new ApiError(403, 'account_suspended', 'x', { banned_until: until }));
    const local = new Date(until).toLocaleString(undefined, { dateStyle: 'full', timeStyle: 'short' });
    expect(sentence).toBe(
      `This account is suspended until ${local}, so it cannot sign in. To talk about it, ask the person who runs this studyhall server.`,
    );
    expect(local).toContain('2031');
    expect(accountProblem(new ApiError(403, 'account_suspended', 'x', { banned_until: null }))).toMatch(
      /^This account is suspended, so it cannot sign in\./,
    );
  });
});
