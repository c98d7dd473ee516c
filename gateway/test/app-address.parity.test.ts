// The students' address and the embedded localbase's mail settings that follow from it: links start
// at the gateway's /__backend on the address other devices reach (PUBLIC_URL, else the LAN address,
// over HTTPS only when every device is meant to trust the local CA), the site URL is the app, and every other address the app answers on
// (the HTTPS certificate's names at HTTPS_PORT among them) may be a redirect target, nothing else.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { authMailAddresses, studentsAppUrl, type AuthMailAddresses } from '../src/app-address.ts';
import { serverCertificateNames } from '../src/https/certificate-names.ts';

/** What the certificate of a classroom machine at 192.168.1.20 names (https-setup.ts makes it so). */
const CLASSROOM_NAMES = serverCertificateNames({
  lanAddresses: ['192.168.1.20', 'fd00::20'],
  mdnsHostName: 'studyhall.local',
  hostName: 'classroom-pc',
});
/** HTTPS served, devices moved there once they trust the CA (HTTPS_REDIRECT=trusted, the default). */
const CLASSROOM_HTTPS_TRUSTED = { port: 3443, names: CLASSROOM_NAMES };
/** HTTPS served to managed devices that all trust the CA (HTTPS_REDIRECT=always): links lead there. */
const CLASSROOM_HTTPS = { ...CLASSROOM_HTTPS_TRUSTED, linksLeadHere: true };

describe('studentsAppUrl', () => {
  it('is the HTTPS LAN address when every device trusts the CA, else the plain-HTTP one, which opens anywhere', () => {
    expect(studentsAppUrl({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20', https: CLASSROOM_HTTPS })).toBe(
      'https://192.168.1.20:3443',
    );
    expect(studentsAppUrl({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20', https: CLASSROOM_HTTPS_TRUSTED })).toBe(
      'http://192.168.1.20:3000',
    );
    expect(studentsAppUrl({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20' })).toBe('http://192.168.1.20:3000');
    expect(
      studentsAppUrl({
        host: '0.0.0.0',
        port: 3000,
        lan: '192.168.1.20',
        https: { port: 443, names: CLASSROOM_NAMES, linksLeadHere: true },
      }),
    ).toBe('https://192.168.1.20');
  });

  it('is the plain-HTTP address when the certificate does not name the LAN address (a certificate of one own)', () => {
    const ownCertificate = { port: 3443, names: { dns: ['study.school.example'], ips: [] }, linksLeadHere: true };
    expect(studentsAppUrl({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20', https: ownCertificate })).toBe(
      'http://192.168.1.20:3000',
    );
  });

  it('is the address HOST names when it is one of the network, bracketed when IPv6', () => {
    expect(studentsAppUrl({ host: 'fd00::20', port: 3000, https: CLASSROOM_HTTPS })).toBe('https://[fd00::20]:3443');
    expect(studentsAppUrl({ host: '192.168.1.20', port: 3000 })).toBe('http://192.168.1.20:3000');
  });

  it('is PUBLIC_URL when set, without its trailing slash, whatever else is true', () => {
    expect(
      studentsAppUrl({
        host: '0.0.0.0',
        port: 3000,
        lan: '192.168.1.20',
        https: CLASSROOM_HTTPS,
        publicUrl: 'https://study.school.example/hall/',
      }),
    ).toBe('https://study.school.example/hall');
  });

  it('is null when no other device reaches the server: a loopback HOST, or no network address', () => {
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      expect(studentsAppUrl({ host, port: 3000, https: CLASSROOM_HTTPS }), host).toBeNull();
    }
    expect(studentsAppUrl({ host: '0.0.0.0', port: 3000, lan: undefined, https: CLASSROOM_HTTPS })).toBeNull();
  });
});

describe('authMailAddresses', () => {
  it('points the links at the gateway on its LAN address, where another device reaches it, when it listens on every interface', () => {
    const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20' });
    expect(addresses.siteUrl).toBe('http://192.168.1.20:3000');
    expect(addresses.externalUrl).toBe('http://192.168.1.20:3000/__backend');
    expect(addresses.redirectAllowList).toEqual([
      'http://127.0.0.1:3000/**',
      'http://localhost:3000/**',
      'http://[::1]:3000/**',
    ]);
  });

  it('keeps the links on the plain-HTTP LAN address by default, and accepts every name of the certificate at HTTPS_PORT', () => {
    const addresses = authMailAddresses({
      host: '0.0.0.0',
      port: 3000,
      lan: '192.168.1.20',
      https: CLASSROOM_HTTPS_TRUSTED,
    });
    expect(addresses.siteUrl).toBe('http://192.168.1.20:3000');
    expect(addresses.externalUrl).toBe('http://192.168.1.20:3000/__backend');
    expect(addresses.redirectAllowList).toContain('https://192.168.1.20:3443/**');
    expect(addresses.redirectAllowList).toContain('https://studyhall.local:3443/**');
  });

  it('points the links at the HTTPS LAN address when every device trusts the CA, and accepts every other name of its certificate at HTTPS_PORT', () => {
    const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20', https: CLASSROOM_HTTPS });
    expect(addresses.siteUrl).toBe('https://192.168.1.20:3443');
    expect(addresses.externalUrl).toBe('https://192.168.1.20:3443/__backend');
    expect(addresses.redirectAllowList).toEqual([
      'http://127.0.0.1:3000/**',
      'http://localhost:3000/**',
      'http://[::1]:3000/**',
      'http://192.168.1.20:3000/**',
      'https://127.0.0.1:3443/**',
      'https://[::1]:3443/**',
      'https://[fd00::20]:3443/**',
      'https://classroom-pc:3443/**',
      'https://classroom-pc.local:3443/**',
      'https://localhost:3443/**',
      'https://studyhall.local:3443/**',
    ]);
  });

  it('falls back to the loopback address when the machine has no LAN address', () => {
    const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: undefined });
    expect(addresses.siteUrl).toBe('http://127.0.0.1:3000');
    expect(addresses.redirectAllowList).toEqual(['http://localhost:3000/**', 'http://[::1]:3000/**']);
  });

  it('uses PUBLIC_URL when set, and still accepts the loopback addresses', () => {
    const addresses = authMailAddresses({ host: '127.0.0.1', port: 3000, publicUrl: 'https://study.example/' });
    expect(addresses.siteUrl).toBe('https://study.example');
    expect(addresses.externalUrl).toBe('https://study.example/__backend');
    expect(addresses.redirectAllowList).toContain('http://127.0.0.1:3000/**');
  });

  it('brackets an IPv6 host', () => {
    expect(authMailAddresses({ host: '::1', port: 8080 }).siteUrl).toBe('http://[::1]:8080');
  });
});

/** localbase with these mail settings, a student, and her recovery mails as the outbox keeps them. */
function mailRoom(addresses: () => AuthMailAddresses) {
  let localbase: Localbase;
  let seen = '';
  beforeAll(async () => {
    localbase = await startLocalbaseStack({ auth: addresses() });
    const signup = await auth('signup', { email: 'ada@example.com', password: 'correct horse battery' });
    expect(signup.status).toBe(200);
  }, 60_000);
  afterAll(() => localbase?.close());

  const auth = (route: string, body: unknown) =>
    fetch(`${localbase.url}/auth/v1/${route}`, {
      method: 'POST',
      headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  return {
    /** The link of the recovery mail sent for a request naming `redirectTo`. */
    async mailedLink(redirectTo: string): Promise<string> {
      const asked = await auth(`recover?redirect_to=${encodeURIComponent(redirectTo)}`, { email: 'ada@example.com' });
      expect(asked.status).toBe(200);
      // The mail is sent after the answer.
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const outbox = (await (
          await fetch(`${localbase.url}/v1/projects/local/auth/outbox`, {
            headers: { authorization: `Bearer ${localbase.accessToken}` },
          })
        ).json()) as { messages: { link: string | null }[] };
        const link = outbox.messages[0]?.link;
        if (link && link !== seen) return (seen = link);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error('no recovery mail');
    },
    /** Where following the link sends the browser (the gateway's /__backend forwards to localbase: followed here directly). */
    async follow(link: string): Promise<string> {
      const response = await fetch(link.replace(addresses().externalUrl, localbase.url), {
        headers: { apikey: localbase.anonKey },
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
      return response.headers.get('location') ?? '';
    },
  };
}

describe('a recovery mail from localbase as the gateway configures it, HTTP only', () => {
  const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20' });
  const room = mailRoom(() => addresses);

  it("starts at the gateway's LAN address and returns to the app's page, and nowhere else", async () => {
    const link = await room.mailedLink('http://127.0.0.1:3000/reset-password');
    expect(link.startsWith('http://192.168.1.20:3000/__backend/auth/v1/verify?')).toBe(true);
    expect(await room.follow(link)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/reset-password#access_token=/);

    const foreign = await room.mailedLink('https://evil.example/reset-password');
    expect(await room.follow(foreign)).toMatch(/^http:\/\/192\.168\.1\.20:3000#access_token=/);
  }, 60_000);
});

describe('a recovery mail from localbase as the gateway configures it, with HTTPS served to trusting devices', () => {
  const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20', https: CLASSROOM_HTTPS });
  const room = mailRoom(() => addresses);

  it('starts at the HTTPS LAN address and returns to the page there', async () => {
    const link = await room.mailedLink('https://192.168.1.20:3443/reset-password');
    expect(link.startsWith('https://192.168.1.20:3443/__backend/auth/v1/verify?')).toBe(true);
    expect(new URL(link).searchParams.get('redirect_to')).toBe('https://192.168.1.20:3443/reset-password');
    expect(await room.follow(link)).toMatch(/^https:\/\/192\.168\.1\.20:3443\/reset-password#access_token=/);
  }, 60_000);

  it('returns to the mDNS name and to the loopback addresses at HTTPS_PORT', async () => {
    for (const page of ['https://studyhall.local:3443/settings', 'https://[::1]:3443/reset-password']) {
      const link = await room.mailedLink(page);
      expect((await room.follow(link)).startsWith(`${page}#access_token=`), page).toBe(true);
    }
  }, 60_000);

  it('sends a redirect to a name the certificate lacks, or to plain HTTP at HTTPS_PORT, to the site URL instead', async () => {
    for (const page of [
      'https://evil.example/reset-password',
      'https://studyhall.lan:3443/reset-password',
      'http://studyhall.local:3443/reset-password',
      'https://studyhall.local:3444/reset-password',
    ]) {
      const link = await room.mailedLink(page);
      expect(await room.follow(link), page).toMatch(/^https:\/\/192\.168\.1\.20:3443#access_token=/);
    }
  }, 60_000);
});
