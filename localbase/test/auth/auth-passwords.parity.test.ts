// Password rules at every door that sets a password (sign-up, admin create; PUT /user and the
// admin update are in auth-account and auth-bans), answered as GoTrue answers them: 422
// weak_password with `weak_password.reasons`, which supabase-js turns into AuthWeakPasswordError.
import { isAuthWeakPasswordError } from '@supabase/supabase-js';
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

let counter = 0;
const freshEmail = (name: string) => `${name}-${process.pid}-${(counter += 1)}@example.com`;

describe('password strength', () => {
  it.each([
    ['password', 'pwned'],
    ['12345678', 'pwned'],
    ['qwertyuiop', 'pwned'],
    ['Password1', 'pwned'],
    ['seven77', 'length'],
    ['short', 'length'],
  ])('refuses sign-up with %j (422 weak_password, reason %s)', async (password, reason) => {
    const { data, error } = await clientFor(localbase).auth.signUp({ email: freshEmail('weak'), password });
    expect(data.user).toBeNull();
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('weak_password');
    expect(isAuthWeakPasswordError(error)).toBe(true);
    if (isAuthWeakPasswordError(error)) expect(error.reasons).toEqual([reason]);
    expect(error?.message).toMatch(reason === 'length' ? /at least 8 characters/ : /known to be weak/);
  });

  it('refuses the e-mail address as the password', async () => {
    const email = freshEmail('mirror');
    const { error } = await clientFor(localbase).auth.signUp({ email, password: email });
    expect(error?.code).toBe('weak_password');
  });

  it('accepts a passphrase', async () => {
    const email = freshEmail('phrase');
    const { data, error } = await clientFor(localbase).auth.signUp({ email, password: 'correct horse battery' });
    expect(error).toBeNull();
    expect(data.user?.email).toBe(email);
  });

  it('answers the legacy shape with the reasons too', async () => {
    const response = await fetch(`${localbase.url}/auth/v1/signup`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ email: freshEmail('legacy'), password: 'password' }),
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({
      code: 422,
      error_code: 'weak_password',
      weak_password: { reasons: ['pwned'] },
    });
  });

  it('refuses a weak password on admin create, and creates with a strong one', async () => {
    const service = clientFor(localbase, localbase.serviceRoleKey);
    const weak = await service.auth.admin.createUser({ email: freshEmail('admin'), password: '12345678' });
    expect(weak.error?.status).toBe(422);
    expect(weak.error?.code).toBe('weak_password');
    const strong = await service.auth.admin.createUser({ email: freshEmail('admin'), password: 'violet lantern tide' });
    expect(strong.error).toBeNull();
  });
});
