// GET /api/client-config: the backend path the app uses (always this origin), the public anon key
// and never the service key, the students' address (app_url: what links handed to others carry),
// the LAN addresses a phone can reach, the app's https address (PUBLIC_URL when it is https, else the
// HTTPS listener's address at the host the page used), or null; and whether auth mail is sent (a
// hosted backend, or localbase with SMTP_URL) or kept in localbase's outbox.
import type { NetworkInterfaces } from '../src/lan/lan-addresses.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpsAppUrl, lanUrls } from '../src/routes/client-config.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { startHttpsTestGateway } from './https-helpers.ts';

/** A classroom machine: loopback and one Wi-Fi address (the one https-helpers' certificate names). */
const CLASSROOM_INTERFACES: NetworkInterfaces = {
  lo: [
    {
      address: '127.0.0.1',
      netmask: '255.0.0.0',
      family: 'IPv4',
      mac: '00:00:00:00:00:00',
      internal: true,
      cidr: '127.0.0.1/8',
    },
  ],
  wlan0: [
    {
      address: '192.168.1.20',
      netmask: '255.255.255.0',
      family: 'IPv4',
      mac: '02:00:00:00:00:01',
      internal: false,
      cidr: '192.168.1.20/24',
    },
  ],
};

/** GET /api/client-config with the Host header a browser at that address sends. */
async function clientConfigAt(target: TestGateway, host: string): Promise<Record<string, unknown>> {
  return (await target.app.inject({ url: '/api/client-config', headers: { host } })).json();
}

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
      app_url: null,
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

  it("names the plain-HTTP LAN address as the students' address when HTTPS is served, and the https address of the host used", async () => {
    const server = await startHttpsTestGateway({
      host: '0.0.0.0',
      gateway: { networkInterfaces: () => CLASSROOM_INTERFACES },
    });
    try {
      const lanHttps = `https://192.168.1.20:${server.httpsPort}`;
      const lanHttp = `http://192.168.1.20:${server.httpPort}`;
      // A teacher on this computer: the links she copies name the LAN address, not 127.0.0.1; over
      // plain HTTP, which opens on a device that has not installed the CA yet.
      const onLoopback = await clientConfigAt(server.gateway, `127.0.0.1:${server.httpPort}`);
      expect(onLoopback).toMatchObject({
        app_url: lanHttp,
        companion_urls: [`http://192.168.1.20:${server.httpPort}`],
        https_url: `https://127.0.0.1:${server.httpsPort}`,
      });
      // A student at the plain-HTTP LAN address, and one at the mDNS name: each is offered HTTPS there.
      expect(await clientConfigAt(server.gateway, `192.168.1.20:${server.httpPort}`)).toMatchObject({
        app_url: lanHttp,
        https_url: lanHttps,
      });
      expect((await clientConfigAt(server.gateway, `StudyHall.local:${server.httpPort}`)).https_url).toBe(
        `https://studyhall.local:${server.httpsPort}`,
      );
      // A name the certificate does not cover gets no https address at all.
      expect((await clientConfigAt(server.gateway, `evil.example:${server.httpPort}`)).https_url).toBeNull();
    } finally {
      await server.close();
    }
  });

  it("names the HTTPS LAN address as the students' address when every device trusts the CA (HTTPS_REDIRECT=always)", async () => {
    const server = await startHttpsTestGateway({
      host: '0.0.0.0',
      redirect: 'always',
      gateway: { networkInterfaces: () => CLASSROOM_INTERFACES },
    });
    try {
      const onLoopback = await clientConfigAt(server.gateway, `127.0.0.1:${server.httpPort}`);
      expect(onLoopback.app_url).toBe(`https://192.168.1.20:${server.httpsPort}`);
    } finally {
      await server.close();
    }
  });

  it("names the plain-HTTP LAN address as the students' address when HTTPS is not served", async () => {
    const plain = await startTestGateway({ networkInterfaces: () => CLASSROOM_INTERFACES });
    try {
      await plain.app.listen({ host: '0.0.0.0', port: 0 });
      const port = (plain.app.server.address() as { port: number }).port;
      expect(await clientConfigAt(plain, `127.0.0.1:${port}`)).toMatchObject({
        app_url: `http://192.168.1.20:${port}`,
        https_url: null,
      });
    } finally {
      await plain.close();
    }
  });

  it("names PUBLIC_URL as the students' address and the https address, whatever the LAN", async () => {
    const server = await startHttpsTestGateway({
      host: '0.0.0.0',
      gateway: {
        networkInterfaces: () => CLASSROOM_INTERFACES,
        config: { publicUrl: 'https://study.school.example/hall/' },
      },
    });
    try {
      expect(await clientConfigAt(server.gateway, `192.168.1.20:${server.httpPort}`)).toMatchObject({
        app_url: 'https://study.school.example/hall',
        https_url: 'https://study.school.example/hall',
      });
    } finally {
      await server.close();
    }
  });

  it('names no address for other devices while the server listens on loopback only', async () => {
    const server = await startHttpsTestGateway({ gateway: { networkInterfaces: () => CLASSROOM_INTERFACES } });
    try {
      expect(await clientConfigAt(server.gateway, `127.0.0.1:${server.httpPort}`)).toMatchObject({
        app_url: null,
        companion_urls: [],
      });
    } finally {
      await server.close();
    }
  });
});
