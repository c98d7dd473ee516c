// Property-based tests of every gateway route against a real localbase: arbitrary JSON (deep, huge,
// odd unicode, `__proto__` and `constructor` keys), arbitrary query strings, paths and headers.
// Whatever comes in, the answer is a success or a JSON 4xx that says what is wrong: never a 5xx,
// never a hang.
import { fc } from '@fast-check/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { RELAXED_DEADLINES, startTestGateway, type TestGateway } from './helpers.ts';
import { decideUrl } from '../src/security/request-path.ts';
import { rawRequest } from './raw-http.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let baseUrl: string;
let token: string;

const HANG_MS = 30_000;
const MiB = 1024 * 1024;

interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  url: string;
  headers?: Record<string, string>;
  payload?: string;
}

/**
 * Sends one request over a raw socket (exactly as written) from 127.0.0.2, which is this computer
 * but not "loopback" to the update route, and checks the answer is boring: a success or a JSON 4xx
 * with an error code and a sentence, within HANG_MS.
 */
async function expectBoring(request: Request): Promise<number> {
  const response = await rawRequest(baseUrl, {
    ...request,
    path: request.url,
    body: request.payload,
    localAddress: '127.0.0.2',
    timeoutMs: HANG_MS,
  });
  const label = `${request.method} ${request.url.slice(0, 120)} -> ${response.status} ${response.body.slice(0, 200)}`;
  expect(response.status, label).toBeLessThan(500);
  // What the proxy relays from the backend keeps the backend's own error shape.
  const relayed = decideUrl(request.url).path.startsWith('/__backend/');
  if (response.status >= 400 && !relayed) {
    expect(response.headers['content-type'], label).toMatch(/^application\/json/);
    const body = JSON.parse(response.body) as { error?: unknown; message?: unknown };
    expect(typeof body.error, label).toBe('string');
    expect(typeof body.message, label).toBe('string');
  }
  return response.status;
}

/** Percent-encodes the UTF-8 bytes of any text (lone surrogates included), as a raw client may. */
function percentEncode(text: string): string {
  return [...Buffer.from(text, 'utf8')]
    .map((byte) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(byte))
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).padStart(2, '0').toUpperCase()}`,
    )
    .join('');
}

// ---- arbitraries ------------------------------------------------------------------------------

const oddText = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }), // lone surrogates and astral characters included
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\uD800',
    '\uDFFF',
    '\u202E',
    '%00',
    '../../etc/passwd',
    "'; drop table users; --",
    '<script>',
    '',
  ),
);

const nested = (depth: number, leaf: string) => `${'{"a":['.repeat(depth)}${leaf}${']}'.repeat(depth)}`;

/** JSON text: ordinary values, deep nesting around the limit, huge strings, prototype keys, junk. */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)) },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(oddText, fc.oneof(oddText, fc.jsonValue({ maxDepth: 3 })), { maxKeys: 6 })
      .map((value) => JSON.stringify(value)),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(fc.integer({ min: 100, max: 400 }), fc.jsonValue({ maxDepth: 1 }))
      .map(([depth, leaf]) => nested(depth, JSON.stringify(leaf))),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1, max: 100_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
        fc.jsonValue({ maxDepth: 2 }),
      )
      .map(
        ([key, value]) => `{"${key}":${JSON.stringify(value)},"payload":{"${key}":{"prototype":{"polluted":true}}}}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(0.5, 1, 4.5, 9)
      .map((mebibytes) => JSON.stringify({ payload: { blob: 'x'.repeat(Math.floor(mebibytes * MiB)) } })),
  },
  { weight: 2, arbitrary: oddText },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      '{"a":1,}',
      'null',
      'true',
      '[]',
      '"string"',
      '1e999',
      '{"a":1}{"b":2}',
      '\uFEFF{}',
    ),
  },
);

/** Bodies shaped like what a route expects, with odd values in the fields. */
const credentialsText = fc
  .record(
    {
      username: fc.oneof(
        fc.emailAddress(),
        oddText,
        fc.constantFrom(`${'a'.repeat(250)}@example.com`, 'A@EXAMPLE.COM'),
      ),
      password: fc.oneof(oddText, fc.string({ minLength: 8, maxLength: 80 })),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));
const profileText = fc
  .record(
    {
      display_name: fc.oneof(oddText, fc.constant(null)),
      handle: oddText,
      avatar_url: fc.oneof(oddText, fc.webUrl(), fc.constant('data:image/png;base64,AAAA')),
      profile_data: fc.jsonValue({ maxDepth: 3 }),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));
const backupText = fc
  .record(
    {
      payload: fc.oneof(
        fc.dictionary(oddText, fc.jsonValue({ maxDepth: 4 }), { maxKeys: 5 }),
        fc.jsonValue({ maxDepth: 2 }),
      ),
      source: oddText,
      app_version: fc.oneof(oddText, fc.constant(null)),
    },
    { requiredKeys: [] },
  )
  .map((value) => JSON.stringify(value));

const queryString = fc.oneof(
  fc.constant(''),
  fc.webQueryParameters().map((query) => `?${query}`),
  fc
    .array(fc.tuple(oddText, oddText), { maxLength: 4 })
    .map((pairs) => `?${pairs.map(([key, value]) => `${percentEncode(key)}=${percentEncode(value)}`).join('&')}`),
  fc.constantFrom('?confirm=1', '?confirm=yes', '?period=all', '?__proto__[x]=1', '?a[b][c]=d', '?%', '?%zz=1'),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'APPLICATION/JSON',
);

const bearer = () =>
  fc.oneof(
    fc.constant({ authorization: `Bearer ${token}` }),
    fc.constant({}),
    oddText.map((text) => ({ authorization: `Bearer ${text.replace(/[^\x21-\x7e]/g, '')}` })),
    fc.constant({
      authorization: `Bearer e30.${Buffer.from('{"sub":"00000000-0000-0000-0000-000000000000"}').toString('base64url')}.forged`,
    }),
  );

// ---- the routes -------------------------------------------------------------------------------

const JSON_POST_ROUTES: Array<{ url: string; body: fc.Arbitrary<string> }> = [
  { url: '/__auth/signup', body: fc.oneof(credentialsText, jsonText) },
  { url: '/__auth/login', body: fc.oneof(credentialsText, jsonText) },
  { url: '/__auth/check', body: fc.oneof(credentialsText, jsonText) },
  { url: '/__auth/profile', body: fc.oneof(profileText, jsonText) },
  { url: '/__auth/backup', body: fc.oneof(backupText, jsonText) },
  { url: '/__auth/snapshot', body: fc.oneof(backupText, jsonText) },
  { url: '/__auth/import', body: fc.oneof(backupText, jsonText) },
  { url: '/__auth/restore-best-backup', body: jsonText },
  {
    url: '/__leaderboard',
    body: fc.oneof(
      fc.constantFrom('day', 'week', 'month', 'all').map((period) => JSON.stringify({ period })),
      jsonText,
    ),
  },
  { url: '/__errors', body: jsonText },
  { url: '/__pip/state', body: jsonText },
  {
    url: '/api/pip/action',
    body: fc.oneof(
      fc
        .record({ action: oddText, target: fc.oneof(fc.integer(), fc.double(), oddText) })
        .map((value) => JSON.stringify(value)),
      jsonText,
    ),
  },
  { url: '/api/update-now', body: jsonText },
  { url: '/__admin/apply-sql', body: jsonText },
];

const GET_ROUTES = [
  '/__app/ping',
  '/api/version',
  '/api/ai-config',
  '/api/health',
  '/sw.js',
  '/api/pip/state',
  '/api/update-status',
  '/api/check-update',
  '/__auth/bootstrap',
  '/__auth/profile',
  '/__auth/backup/best',
  '/__auth/backup/latest',
  '/__admin',
  '/__admin/verify',
];

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    rateLimits: { credentials: { max: 100_000, windowMs: 60_000 }, errorReports: { max: 100_000, windowMs: 60_000 } },
    // Deadlines are proven in deadlines.test.ts; here a busy test machine must not turn a slow
    // password hash into a 504.
    ...RELAXED_DEADLINES,
  });
  // check-update fetches a remote: give the fixture one that answers.
  const { execFileSync } = await import('node:child_process');
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', `${gateway.repoDir}.remote.git`]);
  execFileSync('git', ['-C', gateway.repoDir, 'remote', 'add', 'origin', `${gateway.repoDir}.remote.git`]);
  execFileSync('git', ['-C', gateway.repoDir, 'push', '--quiet', '-u', 'origin', 'main']);
  const signup = await gateway.app.inject({
    method: 'POST',
    url: '/__auth/signup',
    payload: { username: 'prop@example.com', password: 'prop-password-1' },
  });
  expect(signup.statusCode, signup.body).toBe(201);
  token = signup.json().session.access_token;
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
}, 120_000);
afterAll(async () => {
  await gateway?.close();
});

describe('every JSON route, with arbitrary bodies, queries, content types and tokens', () => {
  it.each(JSON_POST_ROUTES.map((route) => [route.url, route.body] as const))(
    'POST %s',
    async (url, body) => {
      await fc.assert(
        fc.asyncProperty(body, queryString, contentType, bearer(), async (payload, query, type, headers) => {
          await expectBoring({
            method: 'POST',
            url: `${url}${query}`,
            headers: { ...headers, 'content-type': type },
            payload,
          });
        }),
        { numRuns: 60 },
      );
    },
    180_000,
  );
});

describe('every GET route, with arbitrary queries and tokens', () => {
  it.each(GET_ROUTES)(
    'GET %s',
    async (url) => {
      // The update routes run git for every request: fewer runs, the same arbitraries.
      const runsGit = url.includes('update');
      await fc.assert(
        fc.asyncProperty(queryString, bearer(), async (query, headers) => {
          await expectBoring({ method: 'GET', url: `${url}${query}`, headers });
        }),
        { numRuns: runsGit ? 10 : 30 },
      );
    },
    120_000,
  );

  it('every method on every route, with an arbitrary body', async () => {
    const urls = [...GET_ROUTES, ...JSON_POST_ROUTES.map((route) => route.url)];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...urls),
        fc.constantFrom('PUT', 'PATCH', 'DELETE', 'OPTIONS') as fc.Arbitrary<Request['method']>,
        jsonText,
        async (url, method, payload) => {
          await expectBoring({ method, url, headers: { 'content-type': 'application/json' }, payload });
        },
      ),
      { numRuns: 100 },
    );
  }, 120_000);
});

describe('arbitrary paths', () => {
  it('are the app, a file, or a JSON 404, never a 5xx', async () => {
    const path = fc.oneof(
      fc.webPath(),
      fc.array(oddText, { maxLength: 5 }).map((segments) => `/${segments.map(percentEncode).join('/')}`),
      fc
        .tuple(
          fc.constantFrom(
            '/api',
            '/__ai',
            '/__auth',
            '/__pip',
            '/__admin',
            '/API',
            '//api',
            '/%61pi',
            '/__backend/functions/v1',
          ),
          fc.webPath(),
        )
        .map(([prefix, rest]) => `${prefix}${rest}`),
    );
    await fc.assert(
      fc.asyncProperty(
        path.filter((value) => value.startsWith('/')),
        fc.constantFrom('GET', 'POST', 'DELETE') as fc.Arbitrary<Request['method']>,
        async (url, method) => {
          await expectBoring({
            method,
            url,
            headers: { 'content-type': 'application/json' },
            payload: method === 'GET' ? undefined : '{}',
          });
        },
      ),
      { numRuns: 300 },
    );
  }, 180_000);

  it('the event stream answers any query with a stream or a JSON refusal, never a server error', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        const controller = new AbortController();
        const response = await fetch(`${baseUrl}/__pip/events${query.replace(/%(?![0-9A-Fa-f]{2})/g, '%25')}`, {
          signal: controller.signal,
        });
        // Pairing is on by default: a query without a known channel is refused (400 or 401).
        if (response.status === 200) expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
        else {
          expect([400, 401]).toContain(response.status);
          expect(gatewayErrorCode(await response.text())).toMatch(/^(invalid_request|pairing_\w+)$/);
        }
        controller.abort();
      }),
      { numRuns: 20 },
    );
  }, 60_000);
});

/** What the gateway answers when the backend, not the gateway, failed a proxied request. */
const UPSTREAM_FAILURES = ['backend_unavailable', 'backend_timeout', 'backend_closed_upload'];

/** The `error` code of a gateway error body, or undefined for anything else. */
function gatewayErrorCode(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return typeof parsed.error === 'string' ? parsed.error : undefined;
  } catch {
    return undefined;
  }
}

describe('the proxy, with arbitrary data API requests', () => {
  it('answers what the backend answers, or its own JSON 4xx, never an error of its own making', async () => {
    const table = fc.constantFrom(
      'user_profiles',
      'user_backups',
      'study_sessions',
      'tasks',
      'no_such_table',
      'rpc/app_bootstrap_user',
      'rpc/no_such_function',
    );
    await fc.assert(
      fc.asyncProperty(
        table,
        queryString,
        fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE') as fc.Arbitrary<Request['method']>,
        jsonText,
        async (name, query, method, payload) => {
          const response = await rawRequest(baseUrl, {
            method,
            path: `/__backend/rest/v1/${name}${query}`,
            localAddress: '127.0.0.3',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            ...(method === 'GET' ? {} : { body: payload }),
            timeoutMs: HANG_MS,
          });
          const label = `${method} ${name}${query}: ${response.status} ${response.body.slice(0, 200)}`;
          expect(response.status, label).toBeGreaterThan(0);
          if (response.status < 500) return;
          // A 5xx is the backend's own answer, relayed (localbase marks every error it makes with
          // Proxy-Status, as PostgREST does), or the gateway saying the backend failed it. Any other
          // 5xx, such as the gateway's internal_error, is an error of the gateway's own making.
          const own = gatewayErrorCode(response.body);
          const relayed = own === undefined && /^PostgREST; error=/.test(response.headers['proxy-status'] ?? '');
          expect(relayed || UPSTREAM_FAILURES.includes(own ?? ''), label).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  }, 180_000);
});
