// Property: whatever JSON, query or token auth is sent (deep, huge, odd unicode, prototype keys,
// e-mails and passwords of any length), it answers with a success or a GoTrue error, never a 5xx,
// never a hang; and signing in keeps working afterwards.
import { fc, test } from '@fast-check/vitest';
import { beforeAll, describe, expect } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signedUpClient } from '../clients.ts';
import { call, encodePath, expectApiAnswer, headerText, hostileJsonText, oddText, RUNS, seen } from '../hostile.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let user: Awaited<ReturnType<typeof signedUpClient>>;
let userToken: string;
let refreshToken: string;

beforeAll(async () => {
  user = await signedUpClient(localbase, 'prop-auth');
  const session = (await user.client.auth.getSession()).data.session;
  userToken = session?.access_token as string;
  refreshToken = session?.refresh_token as string;
});

const email = fc.oneof(
  fc.emailAddress(),
  fc
    .tuple(fc.integer({ min: 200, max: 400 }), fc.constantFrom('@example.com', '@x'))
    .map(([length, domain]) => 'a'.repeat(length) + domain),
  oddText,
  fc.jsonValue({ maxDepth: 2 }),
);
const password = fc.oneof(
  fc.string({ minLength: 6, maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.jsonValue({ maxDepth: 1 }),
  fc.constant('x'.repeat(100_000)),
);
const credentials = fc
  .record(
    {
      email,
      password,
      data: fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.dictionary(oddText, oddText)),
      refresh_token: fc.oneof(oddText, fc.constantFrom('x'.repeat(300), 'a\u0000b')),
      gotrue_meta_security: fc.jsonValue({ maxDepth: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((body) => JSON.stringify(body));
const body = fc.oneof(credentials, hostileJsonText);

const route = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      'signup',
      'token?grant_type=password',
      'token?grant_type=refresh_token',
      'logout',
      'logout?scope=others',
      'user',
      'admin/users',
      'admin/users?page=2&per_page=1',
      'health',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'token',
      'token?grant_type=pkce',
      'logout?scope=everyone',
      'admin/users?page=-1',
      'admin/users?per_page=1e9',
      'recover',
      'verify',
      'otp',
      'admin/users/not-a-uuid',
    ),
  },
  { weight: 1, arbitrary: oddText.map((text) => encodePath(text)) },
);
const bearer = fc.oneof(
  fc.constantFrom('none', 'user', 'service_role', 'anon'),
  headerText.map((text) => `raw:${text}`),
);

function headersFor(who: string, apiVersion: boolean, contentType: string): Record<string, string> {
  const headers: Record<string, string> = { apikey: localbase.anonKey };
  if (contentType !== '') headers['content-type'] = contentType;
  if (apiVersion) headers['x-supabase-api-version'] = '2024-01-01';
  const token = { none: undefined, user: userToken, service_role: localbase.serviceRoleKey, anon: localbase.anonKey }[
    who as 'none'
  ];
  if (token) headers.authorization = `Bearer ${token}`;
  if (who.startsWith('raw:') && who.length > 4) headers.authorization = who.slice(4);
  return headers;
}

const timeout = 30 * RUNS * 150 + 60_000;

describe('auth under arbitrary input', () => {
  test.prop(
    [
      fc.constantFrom('POST', 'GET', 'PUT', 'DELETE'),
      route,
      body,
      bearer,
      fc.boolean(),
      fc.constantFrom('application/json', 'text/plain', ''),
    ],
    {
      numRuns: RUNS * 3,
    },
  )(
    'answers any request with a success or a GoTrue error, never a 5xx',
    async (method, path, text, who, apiVersion, contentType) => {
      // Never end the session the later requests sign in with.
      const caller = path.startsWith('logout') && who === 'user' ? 'anon' : who;
      const url = `${localbase.url}/auth/v1/${path}`;
      const answer = await call(url, {
        method,
        body: method === 'GET' ? undefined : text,
        headers: headersFor(caller, apiVersion, contentType),
      });
      expectApiAnswer('auth', answer, `${method} ${url} as ${caller}: ${text.slice(0, 160)}`);
    },
    timeout,
  );

  test('reached both successes and refusals (the generators are not all garbage)', () => {
    expect([...seen.auth].some((status) => status < 300)).toBe(true);
    expect([...seen.auth].some((status) => status >= 400)).toBe(true);
  });

  test('still signs in and refreshes after all of it', async () => {
    const login = await call(`${localbase.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      body: JSON.stringify({ email: user.email, password: user.password }),
      headers: headersFor('none', true, 'application/json'),
    });
    expect(login.status).toBe(200);
    const refresh = await call(`${localbase.url}/auth/v1/token?grant_type=refresh_token`, {
      method: 'POST',
      body: JSON.stringify({ refresh_token: refreshToken }),
      headers: headersFor('none', true, 'application/json'),
    });
    expect(refresh.status).toBe(200);
  });
});
