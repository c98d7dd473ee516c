// The console's Outbox page: the mail localbase kept, newest first, only for a signed-in admin,
// and only when the gateway runs the embedded localbase (it holds localbase's management token).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { signInWithSecret } from './admin-helpers.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const SECRET = 'outbox-test-admin-secret';
const localbase = fileFixture(startLocalbaseStack);
let gateway: TestGateway;
let hosted: TestGateway;
let cookie: string;

beforeAll(async () => {
  const backend = { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey };
  const config = { admin: { enabled: true, secret: SECRET, emails: [] } };
  gateway = await startTestGateway({ backend: { ...backend, managementToken: localbase.accessToken }, config });
  hosted = await startTestGateway({ backend, config });
  cookie = await signInWithSecret(gateway.app, SECRET);
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await hosted?.close();
});

async function recover(email: string): Promise<void> {
  const response = await fetch(`${localbase.url}/auth/v1/recover`, {
    method: 'POST',
    headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
    body: JSON.stringify({ email }),
  });
  expect(response.status).toBe(200);
}

describe('/__admin/outbox', () => {
  it('lists the kept mail newest first: to, subject, when, the link', async () => {
    const service = { apikey: localbase.serviceRoleKey, authorization: `Bearer ${localbase.serviceRoleKey}` };
    for (const name of ['first', 'second']) {
      const created = await fetch(`${localbase.url}/auth/v1/admin/users`, {
        method: 'POST',
        headers: { ...service, 'content-type': 'application/json' },
        body: JSON.stringify({ email: `${name}@example.com`, password: 'violet lantern tide', email_confirm: true }),
      });
      expect(created.status).toBe(200);
      await recover(`${name}@example.com`);
    }
    let messages: { to: string; subject: string; link: string; created_at: string }[] = [];
    for (let attempt = 0; attempt < 100 && messages.length < 2; attempt += 1) {
      const response = await gateway.app.inject({ url: '/__admin/outbox', headers: { cookie } });
      expect(response.statusCode, response.body).toBe(200);
      messages = response.json().messages;
      if (messages.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(messages.map((message) => message.to)).toEqual(['second@example.com', 'first@example.com']);
    expect(messages[0]).toMatchObject({
      subject: 'Reset Your Password',
      link: expect.stringContaining('type=recovery'),
    });

    const page = await gateway.app.inject({ url: '/__admin/outbox', headers: { cookie, accept: 'text/html' } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<h1>Outbox</h1>');
    expect(page.body).toContain('second@example.com');
    expect(page.body).toContain('Reset Your Password');
  });

  it('shows nothing without an admin session', async () => {
    const response = await gateway.app.inject({ url: '/__admin/outbox' });
    expect(response.statusCode).not.toBe(200);
    expect(response.body).not.toContain('Reset Your Password');
  });

  it('says there is no outbox when fronting a hosted backend', async () => {
    const hostedCookie = await signInWithSecret(hosted.app, SECRET);
    const response = await hosted.app.inject({ url: '/__admin/outbox', headers: { cookie: hostedCookie } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ available: false, smtp: false, messages: [] });
  });
});
