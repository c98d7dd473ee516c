// The admin console's JSON answers are exactly the contract's shapes (a key the contract does not
// know would fail), and `npm run verify`'s client signs in and reads the real report. The backend
// is unreachable here, so verify answers a report full of failures: its shape is what counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchReport, renderReport, signIn } from '../verify/verify-client.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import {
  adminLoginStatus,
  adminSignedIn,
  adminSignedOut,
  browserProofPage,
  VERIFY_CATEGORIES,
  verifyReport,
} from '#contracts/admin-api.ts';

const SECRET = 'an-admin-secret-for-the-contract-tests';

let gateway: TestGateway;
let baseUrl: string;
let cookie: string;

beforeAll(async () => {
  gateway = await startTestGateway({
    config: { admin: { enabled: true, secret: SECRET, emails: [] } },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
  });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  cookie = await signIn(baseUrl, SECRET);
});
afterAll(() => gateway.close());

async function json(path: string, init: RequestInit = {}): Promise<unknown> {
  const response = await fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { accept: 'application/json', cookie, 'content-type': 'application/json', ...init.headers },
  });
  expect(response.ok, `${path} answered ${response.status}`).toBe(true);
  return response.json();
}

describe('the admin console contract', () => {
  it('is the shape of the unlock routes’ answers', async () => {
    const status = await json('/__admin/login');
    expect(adminLoginStatus.parse(status)).toEqual(status);
    expect(status).toMatchObject({ signed_in: true, methods: { secret: true } });
    const signedIn = await json('/__admin/login', {
      method: 'POST',
      body: JSON.stringify({ secret: SECRET }),
      headers: { cookie: '' },
    });
    expect(adminSignedIn.parse(signedIn)).toEqual(signedIn);
    expect(signedIn).toMatchObject({ subject: 'secret', method: 'secret' });
  });

  it('is the shape of the verify report, which `npm run verify` reads and renders', async () => {
    const raw = await json('/__admin/verify');
    expect(verifyReport.parse(raw)).toEqual(raw);
    const report = await fetchReport(baseUrl, cookie);
    expect(report.categories.map((category) => category.id)).toEqual(VERIFY_CATEGORIES.map((category) => category.id));
    expect(report.ok).toBe(false);
    expect(renderReport(report, baseUrl)).toMatch(/checks failed\n$/);
  }, 60_000);

  it('is the shape of the browser proof page’s data', async () => {
    const page = await json('/__admin/browser-proof');
    expect(browserProofPage.parse(page)).toEqual(page);
  });

  it('is the shape of the logout answer', async () => {
    const own = await signIn(baseUrl, SECRET);
    const signedOut = await json('/__admin/logout', { method: 'POST', body: '{}', headers: { cookie: own } });
    expect(adminSignedOut.parse(signedOut)).toEqual(signedOut);
  });

  it('refuses what is not the shape', () => {
    expect(adminSignedIn.safeParse({ ok: true, subject: 'secret', method: 'guess', expires_at: 'x' }).success).toBe(
      false,
    );
    expect(verifyReport.safeParse({ ok: true }).success).toBe(false);
  });
});
