// @vitest-environment happy-dom
// How auth-js failures reach the account screens: a request that never arrived is `offline`, a
// backend that answers 5xx is `backend_down`, a weak password keeps its reasons, the gateway's
// rate limits are `rate_limited`; and the word that
// confirms a deletion is the database's (her handle, or "delete"), compared as it compares.
import { describe, expect, it } from 'vitest';
import { confirmationWord, confirms, fromAuthError } from './account.ts';

describe('fromAuthError', () => {
  it('tells offline, a backend that is down, and a weak password with its reasons apart', () => {
    expect(fromAuthError({ name: 'AuthRetryableFetchError', status: 0, message: 'Failed to fetch' }).code).toBe(
      'offline',
    );
    expect(fromAuthError({ name: 'AuthApiError', status: 502, message: 'The backend did not answer.' }).code).toBe(
      'backend_down',
    );
    const weak = fromAuthError({
      name: 'AuthWeakPasswordError',
      status: 422,
      code: 'weak_password',
      message: 'Password is known to be weak',
      reasons: ['pwned'],
    });
    expect([weak.code, weak.details.reasons]).toEqual(['weak_password', ['pwned']]);
    expect(fromAuthError({ name: 'AuthApiError', status: 400, code: 'same_password', message: 'x' }).code).toBe(
      'same_password',
    );
    expect(fromAuthError({ name: 'AuthApiError', status: 429, message: 'Too many sign-in attempts' }).code).toBe(
      'rate_limited',
    );
  });
});

describe('the deletion word', () => {
  it('is her handle, or "delete" without one, trimmed and in any case', () => {
    expect(confirmationWord('mira')).toBe('mira');
    expect(confirmationWord(null)).toBe('delete');
    expect(confirmationWord('  ')).toBe('delete');
    expect(confirms(' MIRA ', 'mira')).toBe(true);
    expect(confirms('mir', 'mira')).toBe(false);
    expect(confirms('', 'delete')).toBe(false);
  });
});
