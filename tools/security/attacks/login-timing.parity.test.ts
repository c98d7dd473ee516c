// A wrong password takes as long for an e-mail nobody registered as for a registered one. The
// password grant compared a hash only when it found an account, so a wrong password took ~80 ms
// for a registered e-mail and ~5 ms for an unknown one: the time told who has an account. Now
// every path (no account, an account without a password) compares against a dummy hash of the same
// cost. A behaviour check with generous bounds, not a timing gate: each kind of attempt must take
// at least about one bcrypt comparison, and their medians must be within a factor of two.
// On PostgreSQL 15 in `npm test`.
import bcrypt from 'bcryptjs';
import { performance } from 'node:perf_hooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { BCRYPT_COST } from '#localbase';
import { managementQuery, signedUpClient } from '#localbase/test/clients.ts';
import { startLocalbaseStack } from '../../testing/localbase-stack.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const ROUNDS = 7;

// At the product's cost: the test stacks' least cost would make a comparison too short to time.
const localbase = fileFixture(() => startLocalbaseStack({ passwordHashCost: BCRYPT_COST }));
let registered: string;
let withoutPassword: string;

beforeAll(async () => {
  const student = await signedUpClient(localbase, 'timing');
  registered = student.email;
  withoutPassword = `no-password-${process.pid}@example.com`;
  const created = await fetch(`${localbase.url}/auth/v1/admin/users`, {
    method: 'POST',
    headers: {
      apikey: localbase.serviceRoleKey,
      authorization: `Bearer ${localbase.serviceRoleKey}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ email: withoutPassword, email_confirm: true }),
  });
  if (!created.ok) throw new Error(`creating the account without a password failed: ${await created.text()}`);
});

/** One password grant with a wrong password; its answer must be the same refusal whoever asks. */
async function wrongPasswordLogin(email: string): Promise<number> {
  const started = performance.now();
  const response = await fetch(`${localbase.url}/auth/v1/token?grant_type=password`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'not-the-password' }),
  });
  const body = (await response.json()) as { error_code?: string };
  const elapsed = performance.now() - started;
  expect(response.status).toBe(400);
  expect(body.error_code).toBe('invalid_credentials');
  return elapsed;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

describe('attack: telling registered e-mails by how long a wrong password takes', () => {
  it('a wrong password takes about one bcrypt comparison for a registered, an unknown and a password-less account alike', async () => {
    // The floor: half of one comparison against the registered account's own hash, measured in the
    // same rounds as the sign-ins, so that a busy moment of the machine falls on all of them alike.
    const stored = await managementQuery(
      localbase,
      `select encrypted_password as hash from auth.users where email = '${registered}'`,
    );
    const [{ hash }] = (await stored.json()) as [{ hash: string }];
    const compares: number[] = [];
    const times = { registered: [] as number[], unknown: [] as number[], withoutPassword: [] as number[] };
    for (let i = 0; i < ROUNDS; i++) {
      const started = performance.now();
      await bcrypt.compare('not-the-password', hash);
      compares.push(performance.now() - started);
      times.registered.push(await wrongPasswordLogin(registered));
      times.unknown.push(await wrongPasswordLogin(`nobody-${i}-${process.pid}@example.com`));
      times.withoutPassword.push(await wrongPasswordLogin(withoutPassword));
    }
    const floor = median(compares) / 2;
    const medians = {
      registered: median(times.registered),
      unknown: median(times.unknown),
      withoutPassword: median(times.withoutPassword),
    };
    const report = JSON.stringify({ floor, medians });
    for (const value of Object.values(medians)) expect(value, report).toBeGreaterThan(floor);
    for (const value of [medians.unknown, medians.withoutPassword]) {
      expect(value / medians.registered, report).toBeGreaterThan(0.5);
      expect(value / medians.registered, report).toBeLessThan(2);
    }
  }, 120_000);
});
