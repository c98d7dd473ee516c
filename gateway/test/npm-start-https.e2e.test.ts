// `npm start` on the network, as a classroom machine runs it: the real launcher with HOST=0.0.0.0,
// free ports for PORT, HTTPS_PORT and LOCALBASE_PORT, a fresh DATA_DIR and MDNS=off. Its status
// block names the HTTPS LAN address and the page that hands out the local CA; that address answers
// over TLS to a client that trusts exactly the CA the server made in DATA_DIR (and to none that does
// not), the CA page hands out that same certificate, client config names that address as the one
// links carry, and a recovery mail starts there and returns there. SIGTERM stops it.
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { test } from '@playwright/test';
import { expect } from '#tools/e2e/expect.ts';
import { keysFile } from '#localbase';
import { freePort } from '#tools/testing/free-port.ts';
import { startNpmStart, type NpmStart } from '#tools/testing/npm-start.ts';
import { CA_CERT_FILE, TLS_DIR } from '../src/https/local-ca.ts';
import { firstLanIPv4 } from '../src/lan/lan-addresses.ts';
import { makeTempDir } from './helpers.ts';

/** The address the status block shows other devices; this machine's, read as the server reads it. */
const lan = firstLanIPv4();
/** The tests of a machine with a network address, and the one of a machine without. */
const withLan = lan ? test : test.skip;
const withoutLan = lan ? test.skip : test;

let temp: Awaited<ReturnType<typeof makeTempDir>>;
let studyhall: NpmStart;
let dataDir: string;
let port: number;
let httpsPort: number;
let localbasePort: number;

/** GET over TLS at `url`, trusting only `ca` (undefined: the system's CAs), as a browser checks the name. */
function tlsGet(
  url: string,
  ca: string | undefined,
): Promise<{ status: number; issuer: string; body: string; location: string }> {
  return new Promise((resolve, reject) => {
    const request = https.get(url, { ...(ca ? { ca } : {}), agent: false }, (response) => {
      const issuer = String((response.socket as TLSSocket).getPeerCertificate().issuer?.CN ?? '');
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, issuer, body, location: String(response.headers.location ?? '') }),
      );
    });
    request.on('error', reject);
  });
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(240_000);
  temp = await makeTempDir('npm-start-https');
  dataDir = path.join(temp.dir, 'data');
  port = await freePort();
  httpsPort = await freePort();
  localbasePort = await freePort();
  studyhall = startNpmStart({
    PORT: String(port),
    HOST: '0.0.0.0',
    HTTPS_PORT: String(httpsPort),
    LOCALBASE_PORT: String(localbasePort),
    DATA_DIR: dataDir,
    LOG_DIR: path.join(temp.dir, 'logs'),
    LOG_LEVEL: 'warn',
    MDNS: 'off',
  });
  // A fresh DATA_DIR: the first boot makes the database, the CA and the certificate (after up to
  // three builds when the checkout's are stale).
  await studyhall.waitFor('studyhall: logs', 210_000);
});

test.afterAll(async () => {
  if (studyhall?.child.exitCode === null) studyhall.child.kill('SIGKILL');
  await temp?.remove();
});

test.describe('npm start with HOST=0.0.0.0', () => {
  withLan('prints the HTTPS LAN address and the CA page, and the plain-HTTP address besides', () => {
    const lines = studyhall.output().split('\n');
    expect(lines).toContain(`studyhall: app     http://127.0.0.1:${port} (listening on 0.0.0.0)`);
    expect(lines).toContain(`studyhall: lan     https://${lan}:${httpsPort} (students and phones on this network)`);
    expect(lines).toContain(
      `studyhall: ca      http://${lan}:${port}/__ca (install the certificate once per device; then the https address opens without a warning)`,
    );
    expect(lines.some((line) => line.startsWith(`studyhall: http    http://${lan}:${port} works too`))).toBe(true);
    // MDNS=off: no name announced, and nothing said about one.
    expect(studyhall.output()).not.toContain('studyhall.local');
    expect(studyhall.output()).not.toContain('studyhall: name');
  });

  withLan('answers at that address over TLS with the CA from DATA_DIR, and to no client without it', async () => {
    const ca = await readFile(path.join(dataDir, TLS_DIR, CA_CERT_FILE), 'utf8');
    const health = await tlsGet(`https://${lan}:${httpsPort}/api/health`, ca);
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ ok: true });
    expect(health.issuer).toMatch(/studyhall/i);
    await expect(tlsGet(`https://${lan}:${httpsPort}/api/health`, undefined)).rejects.toHaveProperty(
      'code',
      expect.stringMatching(/SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT/),
    );
  });

  withLan('hands out that CA on the CA page it prints', async () => {
    const ca = await readFile(path.join(dataDir, TLS_DIR, CA_CERT_FILE), 'utf8');
    const page = await fetch(`http://${lan}:${port}/__ca`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('href="/__ca/studyhall-ca.crt"');
    const pem = await fetch(`http://${lan}:${port}/__ca/studyhall-ca.pem`);
    expect((await pem.text()).trim()).toBe(ca.trim());
  });

  withLan('names the plain-HTTP LAN address as the one links carry, to a teacher on this computer', async () => {
    const config = (await (await fetch(`http://127.0.0.1:${port}/api/client-config`)).json()) as Record<
      string,
      unknown
    >;
    expect(config).toMatchObject({
      // A link opens on every device; one that trusts the CA is moved to HTTPS by the redirect.
      app_url: `http://${lan}:${port}`,
      https_url: `https://127.0.0.1:${httpsPort}`,
    });
  });

  withLan(
    'mails a recovery link that starts at that address and returns to the HTTPS page it was asked from',
    async () => {
      const keys = JSON.parse(await readFile(keysFile(dataDir), 'utf8')) as { accessToken: string; anonKey: string };
      const secure = `https://${lan}:${httpsPort}`;
      const signup = await fetch(`http://127.0.0.1:${port}/__auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'tess@example.com', password: 'tess-password-1' }),
      });
      expect(signup.status).toBe(201);
      // As the app asks from a page at 127.0.0.1: the return address is the students' address.
      const asked = await fetch(
        `http://127.0.0.1:${port}/__backend/auth/v1/recover?redirect_to=${encodeURIComponent(`${secure}/reset-password`)}`,
        {
          method: 'POST',
          headers: { apikey: keys.anonKey, 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'tess@example.com' }),
        },
      );
      expect(asked.status).toBe(200);
      let link = '';
      for (let attempt = 0; attempt < 100 && !link; attempt += 1) {
        const outbox = (await (
          await fetch(`http://127.0.0.1:${localbasePort}/v1/projects/local/auth/outbox`, {
            headers: { authorization: `Bearer ${keys.accessToken}` },
          })
        ).json()) as { messages: { link: string | null }[] };
        link = outbox.messages[0]?.link ?? '';
        if (!link) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(link.startsWith(`http://${lan}:${port}/__backend/auth/v1/verify?`)).toBe(true);
      // Followed at that address, as any device can, it returns to the HTTPS page, which is allowed.
      const followed = await fetch(link, { redirect: 'manual' });
      expect(followed.status).toBe(303);
      expect(followed.headers.get('location')).toMatch(new RegExp(`^${secure}/reset-password#access_token=`));
    },
  );

  withoutLan('says that it found no network address on a machine without one', () => {
    expect(studyhall.output()).toContain('studyhall: lan     no network address found');
  });

  test('stops cleanly on SIGTERM', async () => {
    test.setTimeout(30_000);
    studyhall.child.kill('SIGTERM');
    expect(await studyhall.exited).toBe(0);
  });
});
