// attack: guess one account's password from many addresses. The per-address budget (10 attempts a
// minute) let 24 addresses x 5 wrong passwords all through as 401s. Now every account has its own
// budget of failed passwords across all addresses, spent by POST /__auth/login and by password
// grants sent straight to /__backend/auth/v1/token alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { DEFAULT_ACCOUNT_LOGIN_BUDGET } from '#gateway/src/security/account-login-limits.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let clockMs = Date.now();

const addresses = Array.from({ length: 24 }, (_, index) => `192.168.7.${index + 10}`);

async function signUp(email: string): Promise<void> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/signup',
    remoteAddress: '10.9.9.9',
    payload: { username: email, password: `${email}-password` },
  });
  expect(response.statusCode, response.body).toBe(201);
}

function login(email: string, password: string, remoteAddress: string) {
  return gateway.app.inject({
    method: 'POST',
    url: '/__auth/login',
    remoteAddress,
    payload: { username: email, password },
  });
}

function backendGrant(body: Record<string, string>, remoteAddress: string, query = 'grant_type=password') {
  return gateway.app.inject({
    method: 'POST',
    url: `/__backend/auth/v1/token?${query}`,
    remoteAddress,
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
}

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    accountLogins: { now: () => clockMs },
  });
}, 120_000);

afterAll(async () => {
  await gateway?.close();
});

describe('attack: 24 addresses x 5 wrong passwords against one account', () => {
  it('refuses the account with 429 after its budget, whatever the address, the right password included', async () => {
    const victim = 'crowd-victim@example.com';
    await signUp(victim);
    const statuses: number[] = [];
    let lastRefusal: Awaited<ReturnType<typeof login>> | undefined;
    for (const address of addresses) {
      for (let attempt = 0; attempt < 5; attempt++) {
        const response = await login(victim, `wrong-guess-${address}-${attempt}`, address);
        statuses.push(response.statusCode);
        if (response.statusCode === 429) lastRefusal = response;
      }
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(DEFAULT_ACCOUNT_LOGIN_BUDGET.max);
    expect(statuses.filter((status) => status === 429)).toHaveLength(120 - DEFAULT_ACCOUNT_LOGIN_BUDGET.max);
    expect(lastRefusal?.json()).toMatchObject({ error: 'rate_limited', scope: 'account', limit: 10, window_s: 900 });
    expect(Number(lastRefusal?.headers['retry-after'])).toBeGreaterThan(0);

    // The owner, from an address that never tried, is locked out too: that is the trade.
    expect((await login(victim, `${victim}-password`, '192.168.7.200')).statusCode).toBe(429);
    // The backend's own token endpoint through the proxy shares the budget, in any spelling of the field.
    expect((await backendGrant({ email: victim, password: `${victim}-password` }, '192.168.7.201')).statusCode).toBe(
      429,
    );
    expect(
      (await backendGrant({ EMAIL: victim.toUpperCase(), password: 'another-guess' }, '192.168.7.202')).statusCode,
    ).toBe(429);
    expect(
      (
        await backendGrant(
          { email: victim, password: 'x' },
          '192.168.7.203',
          'grant_type=refresh_token&grant_type=password',
        )
      ).statusCode,
    ).toBe(429);

    // Other accounts are not touched.
    const bystander = 'crowd-bystander@example.com';
    await signUp(bystander);
    expect((await login(bystander, `${bystander}-password`, addresses[0] ?? '')).statusCode).toBe(200);

    // After the window the account may try again.
    clockMs += DEFAULT_ACCOUNT_LOGIN_BUDGET.windowMs + 1000;
    expect((await login(victim, `${victim}-password`, '192.168.7.200')).statusCode).toBe(200);
  });

  it('counts password grants sent straight to /__backend, and /__auth/login then refuses too', async () => {
    const victim = 'proxy-victim@example.com';
    await signUp(victim);
    // The grant still reaches the backend intact: the right password signs in.
    const signedIn = await backendGrant({ email: victim, password: `${victim}-password` }, '192.168.7.206');
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json().access_token).toEqual(expect.any(String));
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      statuses.push(
        (
          await backendGrant(
            { email: victim, password: `wrong-${attempt}` },
            addresses[attempt % addresses.length] ?? '',
          )
        ).statusCode,
      );
    }
    expect(statuses.slice(0, 10).every((status) => status === 400 || status === 401)).toBe(true);
    expect(statuses.slice(10)).toEqual([429, 429]);
    expect((await login(victim, `${victim}-password`, '192.168.7.204')).statusCode).toBe(429);
  });

  it('does not let a successful login re-open an account under attack', async () => {
    const victim = 'owner-signs-in@example.com';
    await signUp(victim);
    for (let attempt = 0; attempt < 9; attempt++)
      expect((await login(victim, `wrong-password-${attempt}`, addresses[attempt] ?? '')).statusCode).toBe(401);
    expect((await login(victim, `${victim}-password`, '192.168.7.205')).statusCode).toBe(200);
    expect((await login(victim, 'wrong-again', addresses[20] ?? '')).statusCode).toBe(401);
    expect((await login(victim, 'wrong-once-more', addresses[21] ?? '')).statusCode).toBe(429);
  });

  it('lets no burst of parallel guesses past the budget before the first failure is known', async () => {
    const victim = 'burst-victim@example.com';
    await signUp(victim);
    const responses = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        index % 2 === 0
          ? login(victim, `parallel-guess-${index}`, addresses[index % addresses.length] ?? '')
          : backendGrant(
              { email: victim, password: `parallel-guess-${index}` },
              addresses[index % addresses.length] ?? '',
            ),
      ),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status !== 429)).toHaveLength(DEFAULT_ACCOUNT_LOGIN_BUDGET.max);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30 - DEFAULT_ACCOUNT_LOGIN_BUDGET.max);
  });
});
