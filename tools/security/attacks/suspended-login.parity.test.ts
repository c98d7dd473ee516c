// A suspended student signing in through the gateway (/__auth/login, as the app does). She was
// told "The server did not accept this e-mail or password": the backend's `user_banned` fell through
// to a 400 invalid_request, as if she had mistyped. Now the right password of a suspended account is
// told it is suspended, with when the suspension ends (403 account_suspended, banned_until), and
// nothing else learns about the suspension: a wrong password on a suspended account is the same
// 401 invalid_credentials, word for word, as on any account or none, and takes as long (the backend
// compares the password before it looks at the ban, as GoTrue does). A behaviour check with generous
// bounds, not a timing gate, as login-timing.parity.test.ts.
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { BCRYPT_COST } from '#localbase';
import { startAttackStack, type Student } from './attack-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const ROUNDS = 5;

// The product's bcrypt cost, as login-timing.parity.test.ts: the answers' times are compared, and at
// the test stacks' least cost the comparison is lost in the noise of a busy machine.
const stack = fileFixture(() => startAttackStack({ passwordHashCost: BCRYPT_COST }));

const passwordOf = (name: string) => `${name}-password-1`;

async function ban(student: Student, duration: string): Promise<void> {
  const response = await fetch(`${stack.localbase.url}/auth/v1/admin/users/${student.id}`, {
    method: 'PUT',
    headers: {
      apikey: stack.localbase.serviceRoleKey,
      authorization: `Bearer ${stack.localbase.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ ban_duration: duration }),
  });
  expect(response.status, await response.text()).toBe(200);
}

async function login(email: string, password: string) {
  const started = performance.now();
  const response = await stack.gateway.app.inject({
    method: 'POST',
    url: '/__auth/login',
    payload: { username: email, password },
  });
  return { status: response.statusCode, body: response.json(), ms: performance.now() - started };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

describe('a suspended account at the login', () => {
  let suspended: Student;
  let bystander: Student;

  beforeAll(async () => {
    suspended = await stack.signUp(`suspended-${process.pid}`);
    bystander = await stack.signUp(`bystander-${process.pid}`);
    await ban(suspended, '168h');
  });

  it('tells the right password that the account is suspended, and until when', async () => {
    const { status, body } = await login(suspended.email, passwordOf(`suspended-${process.pid}`));
    expect(status, JSON.stringify(body)).toBe(403);
    expect(body.error).toBe('account_suspended');
    const until = Date.parse(body.banned_until);
    expect(until).toBeGreaterThan(Date.now() + 167 * 3600_000);
    expect(until).toBeLessThan(Date.now() + 169 * 3600_000);
    expect(body.message).toMatch(/^This account is suspended until /);
    expect(body).not.toHaveProperty('session');
  });

  it('names no end for a ban without one (a century, what GoTrue calls "until unbanned")', async () => {
    const name = `forever-${process.pid}`;
    const forever = await stack.signUp(name);
    await ban(forever, '876000h');
    const { status, body } = await login(forever.email, passwordOf(name));
    expect(status).toBe(403);
    expect(body).toMatchObject({ error: 'account_suspended', banned_until: null });
  });

  it('answers a wrong password on a suspended account exactly as on any account, or none, in about the same time', async () => {
    const times = { suspended: [] as number[], bystander: [] as number[], nobody: [] as number[] };
    const bodies = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      for (const [kind, email] of [
        ['suspended', suspended.email],
        ['bystander', bystander.email],
        ['nobody', `nobody-${round}-${process.pid}@example.com`],
      ] as const) {
        const { status, body, ms } = await login(email, 'not the password at all');
        expect(status, JSON.stringify(body)).toBe(401);
        bodies.add(JSON.stringify(body));
        times[kind].push(ms);
      }
    }
    expect([...bodies]).toEqual([
      JSON.stringify({
        error: 'invalid_credentials',
        message: 'The e-mail or password is wrong.',
        backend_code: 'invalid_credentials',
      }),
    ]);
    const medians = Object.values(times).map(median);
    console.log(
      `wrong password, median ms: suspended ${median(times.suspended).toFixed(1)}, other account ${median(times.bystander).toFixed(1)}, no account ${median(times.nobody).toFixed(1)}`,
    );
    expect(Math.max(...medians) / Math.min(...medians)).toBeLessThan(2);
  }, 60_000);

  it('lets her back in once the ban is lifted', async () => {
    await ban(suspended, 'none');
    const { status } = await login(suspended.email, passwordOf(`suspended-${process.pid}`));
    expect(status).toBe(200);
  });
});
