// The recheck of an account's console session (admin-standing.ts) against a scripted backend: what
// it asks on every request and what only every 30 s, which answers end the account's sessions, and
// that a backend that does not answer refuses the request without ending anything.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIN_COOKIE,
  accountSubject,
  createAdminGate,
  readAdminCookie,
  signAdminCookie,
  type AdminGate,
} from '../src/admin/admin-cookie.ts';
import { AdminStanding } from '../src/admin/admin-standing.ts';
import { verifyBackendSession } from '../src/admin/login/admin-login.ts';
import { BackendClient } from '../src/backend/backend-client.ts';
import { GatewayError } from '../src/http-errors.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

const SECRET = 'admin-standing-test-secret-32chr';
const ADA = '00000000-0000-4000-8000-00000000000a';
const LISTED = 'head@school.test';

interface Scripted {
  status: number;
  body: unknown;
}

/** What the scripted backend answers: the account by id, the admin rows, the confirmations, /user. */
let account: Scripted;
let adminRows: unknown[];
let confirmations: unknown[];
let tokenUser: Scripted;
/** The path (without query) of every request the backend received. */
let asked: string[];
let server: http.Server;
let backendUrl: string;

const user = (extra: Record<string, unknown> = {}): Scripted => ({
  status: 200,
  body: { id: ADA, email: 'ada@school.test', banned_until: null, ...extra },
});

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const pathname = (request.url ?? '').split('?')[0] ?? '';
    asked.push(pathname);
    const answer = (scripted: Scripted) => {
      response.writeHead(scripted.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(scripted.body));
    };
    if (pathname === `/auth/v1/admin/users/${ADA}`) return answer(account);
    if (pathname === '/auth/v1/user') return answer(tokenUser);
    if (pathname === '/rest/v1/user_roles') return answer({ status: 200, body: adminRows });
    if (pathname === '/rest/v1/admin_email_confirmations') return answer({ status: 200, body: confirmations });
    answer({ status: 404, body: { message: 'not scripted' } });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  backendUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  account = user();
  adminRows = [{ role: 'admin' }];
  confirmations = [];
  tokenUser = user();
  asked = [];
});

function backend(): BackendClient {
  return new BackendClient({ url: backendUrl, anonKey: 'anon-key', serviceRoleKey: 'service-key' });
}

/** A gate, a standing on a clock the test moves, and a signed session of Ada's. */
async function setUp(allowedEmails: string[] = [], email = 'ada@school.test') {
  const gate: AdminGate = createAdminGate({ enabled: true, secret: SECRET, serviceRoleKey: 'service-key' });
  const clock = { ms: Date.now() };
  const standing = new AdminStanding({ gate, backend: backend(), allowedEmails, now: () => clock.ms });
  const cookie = signAdminCookie(gate, accountSubject(ADA, email));
  const session = await readAdminCookie(gate, cookie);
  if (!session) throw new Error('the signed cookie did not read back');
  return { gate, clock, standing, cookie, session };
}

const accountLookups = () => asked.filter((path) => path.startsWith('/auth/v1/admin/users/')).length;
const roleLookups = () => asked.filter((path) => path === '/rest/v1/user_roles').length;

describe('AdminStanding', () => {
  it('asks for the account on every request and for the admin row at most every 30 s', async () => {
    const { clock, standing, session } = await setUp();
    for (let request = 0; request < 5; request += 1) expect(await standing.verdict(session)).toBe('stands');
    expect(accountLookups()).toBe(5);
    expect(roleLookups()).toBe(1);
    clock.ms += 30_000;
    expect(await standing.verdict(session)).toBe('stands');
    expect(roleLookups()).toBe(2);
  });

  it.each([
    ['a ban with an end time ahead', user({ banned_until: new Date(Date.now() + 3_600_000).toISOString() })],
    ['a ban without an end time (set by SQL as infinity)', user({ banned_until: 'infinity' })],
    [
      'a deleted account (404)',
      { status: 404, body: { code: 404, error_code: 'user_not_found', msg: 'User not found' } },
    ],
    ['a soft-deleted account', user({ deleted_at: new Date().toISOString() })],
  ])('%s ends the account’s sessions at once, within the 30 s', async (_name, answer) => {
    const { gate, standing, cookie, session } = await setUp();
    expect(await standing.verdict(session)).toBe('stands');
    account = answer;
    expect(await standing.verdict(session)).toBe('lost');
    expect(await readAdminCookie(gate, cookie)).toBeUndefined();
    // Ended for good: the account answering well again does not bring the cookie back.
    account = user();
    expect(await readAdminCookie(gate, cookie)).toBeUndefined();
  });

  it('keeps a session whose ban has already ended', async () => {
    const { standing, session } = await setUp();
    account = user({ banned_until: new Date(Date.now() - 60_000).toISOString() });
    expect(await standing.verdict(session)).toBe('stands');
  });

  it('reads an ADMIN_EMAILS rule with the address the account has now, not the one it signed in with', async () => {
    adminRows = [];
    confirmations = [{ user_id: ADA }];
    const { standing, session } = await setUp([LISTED], LISTED);
    account = user({ email: LISTED });
    expect(await standing.verdict(session)).toBe('stands');

    const moved = await setUp([LISTED], LISTED);
    account = user({ email: 'elsewhere@school.test' });
    expect(await moved.standing.verdict(moved.session)).toBe('lost');
    expect(asked.filter((path) => path === '/rest/v1/admin_email_confirmations')).toHaveLength(1);
  });

  it('a backend that cannot answer leaves the standing unknown and ends nothing; the next request asks again', async () => {
    const { gate, standing, cookie, session } = await setUp();
    account = { status: 500, body: { message: 'boom' } };
    expect(await standing.verdict(session)).toBe('unknown');
    expect((await readAdminCookie(gate, cookie))?.subject).toBe(session.subject);
    account = user();
    expect(await standing.verdict(session)).toBe('stands');
  });

  it('asks nothing about a session opened with ADMIN_SECRET', async () => {
    const { gate, standing } = await setUp();
    const owner = await readAdminCookie(gate, signAdminCookie(gate, 'secret'));
    expect(owner && (await standing.verdict(owner))).toBe('stands');
    expect(asked).toEqual([]);
  });
});

describe('the console login', () => {
  it('refuses a banned account whose token the backend still accepts', async () => {
    tokenUser = user({ banned_until: new Date(Date.now() + 3_600_000).toISOString() });
    const refused = await verifyBackendSession(backend(), 'a-token', [], true, false).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ statusCode: 403, code: 'account_banned' });
    expect(roleLookups()).toBe(0);

    tokenUser = user();
    await expect(verifyBackendSession(backend(), 'a-token', [], true, false)).resolves.toMatchObject({
      userId: ADA,
      allowedBy: 'user_roles',
    });
  });
});

describe('a standing the backend cannot confirm, at the gateway', () => {
  let gateway: TestGateway;
  const cookie = () =>
    `${ADMIN_COOKIE}=${encodeURIComponent(signAdminCookie(Buffer.from(SECRET), accountSubject(ADA, 'ada@school.test')))}`;

  beforeAll(async () => {
    gateway = await startTestGateway({
      backend: { url: backendUrl, anonKey: 'anon-key', serviceRoleKey: 'service-key' },
      config: { admin: { enabled: true, secret: SECRET, emails: [] } },
    });
  });

  afterAll(async () => {
    await gateway.close();
  });

  it('is 503 admin_standing_unknown on the console and the proxy, and the backend sees no proxied request', async () => {
    account = { status: 503, body: { message: 'unavailable' } };
    const consolePage = await gateway.app.inject({
      url: '/__admin/no-such-page',
      headers: { cookie: cookie(), accept: 'application/json' },
    });
    expect(consolePage.statusCode).toBe(503);
    expect(consolePage.json()).toMatchObject({ error: 'admin_standing_unknown' });
    asked = [];
    const proxied = await gateway.app.inject({ url: '/__backend/rest/v1/user_roles', headers: { cookie: cookie() } });
    expect(proxied.statusCode).toBe(503);
    expect(proxied.json()).toMatchObject({ error: 'admin_standing_unknown' });
    expect(asked).toEqual([`/auth/v1/admin/users/${ADA}`]);

    // The session was not ended: once the backend answers, the same cookie works.
    account = user();
    const again = await gateway.app.inject({
      url: '/__admin/no-such-page',
      headers: { cookie: cookie(), accept: 'application/json' },
    });
    expect(again.json()).toMatchObject({ error: 'not_found' });
  });
});
