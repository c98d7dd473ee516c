// GET /api/client-config: the backend path the app uses (always this origin), the public anon key
// and never the service key, the LAN addresses a phone can reach, and the app's https address
// (PUBLIC_URL when it is https), or null; and whether auth mail is sent (a hosted backend, or
// localbase with SMTP_URL) or kept in localbase's outbox.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsAppUrl, lanUrls } from '../src/routes/client-config.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway({
    backend: { url: 'http://127.0.0.1:1', anonKey: 'public-anon-key', serviceRoleKey: 'secret-service-key' },
  });
});
afterAll(() => gateway.close());

describe('/api/client-config', () => {
  it('names /__backend and the anon key, never the service key', async () => {
    const response = await gateway.app.inject({ url: '/api/client-config' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      backend_url: '/__backend',
      anon_key: 'public-anon-key',
      companion_urls: [],
      https_url: null,
      sends_mail: false,
    });
    expect(response.body).not.toContain('secret-service-key');
  });

  it('says that auth mail is sent with SMTP_URL or a hosted backend, and kept in the outbox otherwise', async () => {
    for (const [config, sendsMail] of [
      [{}, false],
      [{ smtpUrl: 'smtp://mail.school.example:587' }, true],
      [{ backend: { url: 'https://abc.supabase.co', anonKey: 'anon', serviceRoleKey: undefined } }, true],
    ] as const) {
      const server = await startTestGateway({
        backend: { url: 'http://127.0.0.1:1', anonKey: 'public-anon-key', serviceRoleKey: undefined },
        config,
      });
      try {
        expect((await server.app.inject({ url: '/api/client-config' })).json().sends_mail).toBe(sendsMail);
      } finally {
        await server.close();
      }
    }
  });

  it('lists one URL per external IPv4 address for a server bound to every interface', () => {
    const interfaces = {
      lo: [{ address: '127.0.0.1', family: 'IPv4', internal: true }],
      wlan0: [
        { address: '192.168.1.20', family: 'IPv4', internal: false },
        { address: 'fe80::1', family: 'IPv6', internal: false },
      ],
    } as never;
    expect(lanUrls(interfaces, 3000)).toEqual(['http://192.168.1.20:3000']);
  });

  it('names PUBLIC_URL as the https address when it is https, and nothing for a plain-HTTP one', async () => {
    const secure = await startTestGateway({
      backend: { url: 'http://127.0.0.1:1', anonKey: 'public-anon-key', serviceRoleKey: undefined },
      config: { publicUrl: 'https://study.school.example/' },
    });
    try {
      expect((await secure.app.inject({ url: '/api/client-config' })).json().https_url).toBe(
        'https://study.school.example',
      );
    } finally {
      await secure.close();
    }
    expect(httpsAppUrl('https://study.school.example:8443/hall/')).toBe('https://study.school.example:8443/hall');
    expect(httpsAppUrl('http://192.168.1.20:3000')).toBeNull();
    expect(httpsAppUrl(undefined)).toBeNull();
  });

  it('offers no LAN address while the server listens on loopback only', async () => {
    await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const response = await gateway.app.inject({ url: '/api/client-config' });
    expect(response.json().companion_urls).toEqual([]);
  });
});
