// The admin console's routes check their input against their declared schemas before the handler
// runs; a refusal still reaches people as the console answers it: a browser's form gets the
// console's error page (or, for the unlock form, the unlock page with the reason), a script gets
// the JSON error body naming the field. What a form sends (strings, "on" for a ticked box) passes.
// No backend is needed: every request here is decided before the first backend call.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formBoolean } from '../src/admin/form-body.ts';
import { signInWithSecret } from './admin-helpers.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

const SECRET = 'an-admin-secret-for-the-form-tests';
const ORIGIN = 'http://studyhall.test:3000';
const HOST = 'studyhall.test:3000';
const ACCOUNT = '0b9a4a63-3a44-4c3b-9f0e-6f2f5f0b3a11';

let gateway: TestGateway;
let cookie: string;

beforeAll(async () => {
  gateway = await startTestGateway({
    config: { admin: { enabled: true, secret: SECRET, emails: [] } },
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
  });
  cookie = await signInWithSecret(gateway.app, SECRET);
});

afterAll(async () => {
  await gateway?.close();
});

/** A form post from the console's own page, as a browser sends it. */
function postForm(url: string, fields: Record<string, string>, options: { signedIn?: boolean } = {}) {
  return gateway.app.inject({
    method: 'POST',
    url,
    headers: {
      ...(options.signedIn === false ? {} : { cookie }),
      origin: ORIGIN,
      host: HOST,
      accept: 'text/html,application/xhtml+xml',
      'content-type': 'application/x-www-form-urlencoded',
    },
    payload: new URLSearchParams(fields).toString(),
  });
}

function postJson(url: string, payload: Record<string, unknown>) {
  return gateway.app.inject({ method: 'POST', url, headers: { cookie }, payload });
}

describe('a form the schema refuses', () => {
  it("gets the console's error page naming the field, and nothing is done", async () => {
    const response = await postForm(`/__admin/users/${ACCOUNT}/ban`, { duration: 'forever', confirm: 'on' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('That did not work');
    expect(response.body).toContain('duration: must be one of 1h, 24h, 168h, 720h, 876000h or none');
    expect(response.body).toContain('Error code <code>invalid_request</code> (HTTP 400)');
    expect(response.body).toContain('Nothing else was changed by this request.');
    // The page links back to where the form was, on this server only.
    expect(response.body).toContain('href="/__admin/verify"');
  });

  it('names a path parameter that is not an account id the same way', async () => {
    const response = await postForm('/__admin/users/not-an-id/reset-link', { delivery: 'mail' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('id: must be an account id');
  });

  it('names a missing field of an empty form, as of a post without a body', async () => {
    const empty = await postForm('/__admin/sessions/void', {});
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('session_id:');
    const bodiless = await gateway.app.inject({
      method: 'POST',
      url: '/__admin/sessions/void',
      headers: { cookie, origin: ORIGIN, host: HOST },
    });
    expect(bodiless.statusCode).toBe(400);
    expect(bodiless.json()).toMatchObject({
      error: 'invalid_request',
      problems: [expect.stringMatching(/^session_id: /)],
    });
  });

  it('answers a script with the JSON error body and its problems', async () => {
    const response = await postJson(`/__admin/users/${ACCOUNT}/ban`, { duration: 'forever' });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: 'invalid_request',
      message: 'duration: must be one of 1h, 24h, 168h, 720h, 876000h or none',
      problems: ['duration: must be one of 1h, 24h, 168h, 720h, 876000h or none'],
    });
  });

  it('refuses a box that is neither ticked nor unticked, saying what a form sends', async () => {
    const response = await postJson('/__admin/storage/cleanup-apply', { preview_id: 'p', confirm: 'maybe' });
    expect(response.statusCode).toBe(400);
    expect(response.json().problems).toEqual(['confirm: must be true or false (a ticked box sends "on")']);
  });

  it('refuses a query the page cannot read with the error page', async () => {
    const response = await gateway.app.inject({
      url: '/__admin/audit?before=-3',
      headers: { cookie, accept: 'text/html' },
    });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('before: must be an entry number');
  });

  it('is refused by the sign-in check first: without a session nothing about the body is said', async () => {
    const response = await gateway.app.inject({
      method: 'POST',
      url: `/__admin/users/${ACCOUNT}/ban`,
      headers: { origin: ORIGIN, host: HOST },
      payload: { duration: 'forever' },
    });
    expect(response.statusCode).toBe(401);
    expect(response.json().error).toBe('admin_login_required');
  });
});

describe('the unlock form the schema refuses', () => {
  it('shows the unlock page again with the reason, keeping where it was going', async () => {
    const response = await postForm('/__admin/login', { next: '/__admin/roles' }, { signedIn: false });
    expect(response.statusCode).toBe(400);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).not.toContain('That did not work');
    expect(response.body).toContain('Unlock');
    expect(response.body).toContain('value="/__admin/roles"');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('answers a script with the JSON error body', async () => {
    const response = await gateway.app.inject({ method: 'POST', url: '/__admin/login', payload: { secret: '' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ error: 'invalid_request' });
    expect(response.headers['set-cookie']).toBeUndefined();
  });
});

describe('what a form sends', () => {
  it('passes a ticked box ("on") and reaches the handler', async () => {
    // No preview has this id: the handler's own 404, so the schema let the form through.
    const ticked = await postForm('/__admin/storage/cleanup-apply', { preview_id: 'no-such-preview', confirm: 'on' });
    expect(ticked.statusCode).toBe(404);
    expect(ticked.body).toContain('preview_not_found');
    // Unticked, the box is not sent at all: the handler's own refusal, not the schema's.
    const unticked = await postForm('/__admin/storage/cleanup-apply', { preview_id: 'no-such-preview' });
    expect(unticked.statusCode).toBe(400);
    expect(unticked.body).toContain('confirmation_required');
  });

  it('reads the strings of a checkbox as booleans, and JSON booleans as they are', () => {
    for (const value of ['true', 'on', '1', 'yes', true]) expect(formBoolean.parse(value), String(value)).toBe(true);
    for (const value of ['false', '0', 'no', '', false]) expect(formBoolean.parse(value), String(value)).toBe(false);
    for (const value of ['maybe', 1, null, undefined])
      expect(formBoolean.safeParse(value).success, String(value)).toBe(false);
  });
});
