// The embedded localbase's mail settings follow from the gateway's public address: links start at
// the gateway's /__backend, the site URL is the app, and every other address the app answers on
// may be a redirect target, nothing else.
import { describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { authMailAddresses } from '../src/app-address.ts';

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

  it("makes localbase mail a recovery link through the gateway that returns to the app's page, and nowhere else", async () => {
    const addresses = authMailAddresses({ host: '0.0.0.0', port: 3000, lan: '192.168.1.20' });
    const localbase = await startLocalbaseStack({ auth: addresses });
    try {
      const auth = (route: string, body: unknown) =>
        fetch(`${localbase.url}/auth/v1/${route}`, {
          method: 'POST',
          headers: { apikey: localbase.anonKey, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      expect((await auth('signup', { email: 'ada@example.com', password: 'correct horse battery' })).status).toBe(200);
      const mailedLink = async (redirectTo: string) => {
        expect(
          (await auth(`recover?redirect_to=${encodeURIComponent(redirectTo)}`, { email: 'ada@example.com' })).status,
        ).toBe(200);
        // The mail is sent after the answer.
        for (let attempt = 0; attempt < 50; attempt += 1) {
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
      };
      let seen = '';
      const follow = async (link: string) => {
        // The gateway's /__backend forwards to localbase: followed here directly.
        const response = await fetch(link.replace(addresses.externalUrl, localbase.url), {
          headers: { apikey: localbase.anonKey },
          redirect: 'manual',
        });
        expect(response.status).toBe(303);
        return response.headers.get('location') ?? '';
      };

      const link = await mailedLink('http://127.0.0.1:3000/reset-password');
      expect(link.startsWith('http://192.168.1.20:3000/__backend/auth/v1/verify?')).toBe(true);
      expect(await follow(link)).toMatch(/^http:\/\/127\.0\.0\.1:3000\/reset-password#access_token=/);

      const foreign = await mailedLink('https://evil.example/reset-password');
      expect(await follow(foreign)).toMatch(/^http:\/\/192\.168\.1\.20:3000#access_token=/);
    } finally {
      await localbase.close();
    }
  }, 60_000);

  it('brackets an IPv6 host', () => {
    expect(authMailAddresses({ host: '::1', port: 8080 }).siteUrl).toBe('http://[::1]:8080');
  });
});
