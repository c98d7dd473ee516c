// GoTrue's exact refusals for what localbase does not offer, as a hosted project answers with the
// feature turned off (never a 404 of an unknown route): SAML SSO, ID-token and Web3 sign-in, OAuth
// providers, PKCE code exchange, manual identity linking; and a duplicate sign-up. Each refusal
// creates nothing, and each is checked in the shape supabase-js reads and, where it differs, in
// GoTrue's legacy shape.
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { clientFor, managementQuery, signedUpClient } from '../clients.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);

const anon = () => clientFor(localbase);

async function counts(): Promise<{ users: number; sessions: number; identities: number }> {
  const response = await managementQuery(
    localbase,
    `select (select count(*)::int from auth.users) as users, (select count(*)::int from auth.sessions) as sessions,
       (select count(*)::int from auth.identities) as identities`,
  );
  return ((await response.json()) as { users: number; sessions: number; identities: number }[])[0] as never;
}

/** A raw request to /auth/v1, answered in the legacy shape (no API version header). */
async function raw(path: string, init: RequestInit & { token?: string } = {}) {
  const response = await fetch(`${localbase.url}/auth/v1${path}`, {
    ...init,
    headers: {
      apikey: localbase.anonKey,
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
    },
  });
  return { status: response.status, errorCode: response.headers.get('x-sb-error-code'), body: await response.json() };
}

describe('sign-up', () => {
  it("refuses an address already registered with GoTrue's 'User already registered' (422 user_already_exists)", async () => {
    const user = await signedUpClient(localbase, 'refusal-duplicate');
    const before = await counts();
    const { data, error } = await anon().auth.signUp({ email: user.email, password: 'another strong passphrase' });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('user_already_exists');
    expect(error?.message).toBe('User already registered');
    expect(data.session).toBeNull();
    expect(await counts()).toEqual(before);
    // The first password still signs in; the second does not.
    expect((await anon().auth.signInWithPassword({ email: user.email, password: user.password })).error).toBeNull();
    const second = await anon().auth.signInWithPassword({ email: user.email, password: 'another strong passphrase' });
    expect(second.error?.code).toBe('invalid_credentials');
  });

  it('refuses an address without a password (400 validation_failed)', async () => {
    const { status, body } = await raw('/signup', {
      method: 'POST',
      body: JSON.stringify({ email: 'no-password@example.com' }),
    });
    expect(status).toBe(400);
    expect(body).toEqual({ code: 400, error_code: 'validation_failed', msg: 'Signup requires a valid password' });
  });
});

describe('single sign-on', () => {
  it('answers 404 saml_provider_disabled for a domain or a provider id, and creates nobody', async () => {
    const before = await counts();
    for (const params of [{ domain: 'school.example' }, { providerId: '00000000-0000-4000-8000-000000000001' }]) {
      const { data, error } = await anon().auth.signInWithSSO(params);
      expect(data).toBeNull();
      expect(error?.status).toBe(404);
      expect(error?.code).toBe('saml_provider_disabled');
      expect(error?.message).toBe('SAML 2.0 is disabled');
    }
    const metadata = await raw('/sso/saml/metadata');
    expect(metadata).toMatchObject({ status: 404, errorCode: 'saml_provider_disabled' });
    const acs = await raw('/sso/saml/acs', { method: 'POST', body: '{}' });
    expect(acs).toMatchObject({ status: 404, errorCode: 'saml_provider_disabled' });
    expect(await counts()).toEqual(before);
  });

  it('answers the admin SSO API only to the service role, then with the same refusal', async () => {
    const service = await raw('/admin/sso/providers', { token: localbase.serviceRoleKey });
    expect(service.status).toBe(404);
    expect(service.body).toEqual({ code: 404, error_code: 'saml_provider_disabled', msg: 'SAML 2.0 is disabled' });
    const user = await signedUpClient(localbase, 'refusal-sso-admin');
    const token = (await user.client.auth.getSession()).data.session?.access_token as string;
    const notAdmin = await raw('/admin/sso/providers', { method: 'POST', body: '{}', token });
    expect(notAdmin).toMatchObject({ status: 403, errorCode: 'not_admin' });
  });
});

describe('ID-token sign-in', () => {
  it("answers a known provider with GoTrue's 400 provider_disabled naming its issuer", async () => {
    const before = await counts();
    const google = await anon().auth.signInWithIdToken({ provider: 'google', token: 'header.payload.signature' });
    expect(google.error?.status).toBe(400);
    expect(google.error?.code).toBe('provider_disabled');
    expect(google.error?.message).toBe('Provider (issuer "https://accounts.google.com") is not enabled');
    const facebook = await anon().auth.signInWithIdToken({ provider: 'facebook', token: 'x' });
    expect(facebook.error?.message).toBe('Provider (issuer "https://www.facebook.com") is not enabled');
    expect(await counts()).toEqual(before);
  });

  it("reads Apple's issuer from the token as GoTrue does, refusing one it cannot read", async () => {
    const unsigned = (payload: object) =>
      `${Buffer.from('{"alg":"RS256"}').toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.sig`;
    const apple = await anon().auth.signInWithIdToken({
      provider: 'apple',
      token: unsigned({ iss: 'https://appleid.apple.com' }),
    });
    expect(apple.error?.code).toBe('provider_disabled');
    expect(apple.error?.message).toBe('Provider (issuer "https://appleid.apple.com") is not enabled');
    const garbled = await anon().auth.signInWithIdToken({ provider: 'apple', token: 'not-a-jwt' });
    expect(garbled.error?.status).toBe(400);
    expect(garbled.error?.code).toBe('validation_failed');
    expect(garbled.error?.message).toBe('Unable to detect issuer in ID token for Apple provider');
    const wrongIssuer = await anon().auth.signInWithIdToken({
      provider: 'apple',
      token: unsigned({ iss: 'https://evil.example' }),
    });
    expect(wrongIssuer.error?.message).toBe('Detected ID token issuer is not an Apple ID token issuer');
  });

  it('refuses an unknown provider, and answers a request without a token in OAuth shape', async () => {
    const unknown = await anon().auth.signInWithIdToken({ provider: 'myspace', token: 'x' });
    expect(unknown.error?.status).toBe(400);
    expect(unknown.error?.code).toBe('validation_failed');
    expect(unknown.error?.message).toBe('Custom OIDC provider "myspace" not allowed');
    const noToken = await raw('/token?grant_type=id_token', {
      method: 'POST',
      body: JSON.stringify({ provider: 'google' }),
    });
    expect(noToken).toMatchObject({
      status: 400,
      body: { error: 'invalid request', error_description: 'id_token required' },
    });
  });
});

describe('Web3, PKCE and unknown grants', () => {
  it('answers Web3 sign-in with 422 web3_provider_disabled', async () => {
    const before = await counts();
    const { error } = await anon().auth.signInWithWeb3({
      chain: 'ethereum',
      message: 'studyhall.test wants you to sign in with your Ethereum account',
      signature: '0x00',
    } as never);
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('web3_provider_disabled');
    expect(error?.message).toBe('Web3 provider is disabled');
    expect(await counts()).toEqual(before);
  });

  it('answers a code exchange with no flow behind it, and an empty one, as GoTrue does', async () => {
    const exchange = await raw('/token?grant_type=pkce', {
      method: 'POST',
      body: JSON.stringify({ auth_code: 'made-up', code_verifier: 'also-made-up' }),
    });
    expect(exchange).toMatchObject({ status: 404, errorCode: 'flow_state_not_found' });
    const empty = await raw('/token?grant_type=pkce', { method: 'POST', body: '{}' });
    expect(empty).toMatchObject({ status: 400, errorCode: 'validation_failed' });
  });

  it('refuses an unknown grant type (400 invalid_credentials unsupported_grant_type)', async () => {
    for (const query of ['?grant_type=magic', '']) {
      const answer = await raw(`/token${query}`, { method: 'POST', body: '{}' });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ code: 400, error_code: 'invalid_credentials', msg: 'unsupported_grant_type' });
    }
  });

  it('answers a password sign-in with a phone number with 422 phone_provider_disabled, signing nobody in', async () => {
    const before = await counts();
    const { data, error } = await anon().auth.signInWithPassword({ phone: '+15551234567', password: 'any password' });
    expect(error?.status).toBe(422);
    expect(error?.code).toBe('phone_provider_disabled');
    expect(error?.message).toBe('Phone logins are disabled');
    expect(data.session).toBeNull();
    expect(await counts()).toEqual(before);
  });

  it('answers OAuth sign-in (GET /authorize) with the provider not enabled', async () => {
    const { data } = await anon().auth.signInWithOAuth({ provider: 'github', options: { skipBrowserRedirect: true } });
    const answer = await fetch(data.url as string, { redirect: 'manual' });
    expect(answer.status).toBe(400);
    expect(await answer.json()).toMatchObject({
      error_code: 'validation_failed',
      msg: expect.stringContaining('not enabled'),
    });
  });
});

describe('identity linking', () => {
  it('answers linkIdentity and unlinkIdentity with 404 manual_linking_disabled, changing nothing', async () => {
    const user = await signedUpClient(localbase, 'refusal-link');
    const before = await counts();
    const link = await user.client.auth.linkIdentity({ provider: 'github' });
    expect(link.error?.status).toBe(404);
    expect(link.error?.code).toBe('manual_linking_disabled');
    expect(link.error?.message).toBe('Manual linking is disabled');
    expect(link.data.url).toBeNull();
    const identity = (await user.client.auth.getUserIdentities()).data?.identities[0];
    expect(identity?.provider).toBe('email');
    const unlink = await user.client.auth.unlinkIdentity(identity as never);
    expect(unlink.error?.status).toBe(404);
    expect(unlink.error?.code).toBe('manual_linking_disabled');
    expect((await user.client.auth.getUserIdentities()).data?.identities).toHaveLength(1);
    expect(await counts()).toEqual(before);
  });

  it('checks the session first: without one it is 401 no_authorization', async () => {
    const answer = await raw('/user/identities/authorize?provider=github');
    expect(answer).toMatchObject({ status: 401, errorCode: 'no_authorization' });
  });
});
