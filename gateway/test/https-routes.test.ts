// /__ca over plain HTTP and HTTPS, what it answers without a local CA, the redirect of plain-HTTP
// page visits (which devices move, and that loopback, /__ca, API calls and hosts the certificate
// does not name never do), and the CA's key, which no route serves under any spelling of a path.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CA_KEY_FILE, TLS_DIR } from '../src/https/local-ca.ts';
import { startTestGateway } from './helpers.ts';
import { httpsGet, startHttpsTestGateway, type HttpsTestGateway } from './https-helpers.ts';
import { rawRequest } from './raw-http.ts';

let server: HttpsTestGateway;
let httpUrl: string;
beforeAll(async () => {
  server = await startHttpsTestGateway({ dataDirInRepo: '.data' });
  httpUrl = `http://127.0.0.1:${server.httpPort}`;
});
afterAll(() => server?.close());

describe('/__ca over plain HTTP', () => {
  it('is a page with the download, the fingerprint, a QR code and the install steps of every platform', async () => {
    const response = await fetch(`${httpUrl}/__ca`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain(`connect-src https://127.0.0.1:${server.httpsPort}`);
    expect(policy).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain('href="/__ca/studyhall-ca.crt"');
    expect(page).toContain(server.identity.ca!.fingerprint);
    for (const platform of ['Android', 'iPhone and iPad', 'Chromebook', 'Windows', 'macOS', 'Linux'])
      expect(page).toContain(`<h3>${platform}`);
    expect(page).toContain('Settings › General › About › Certificate Trust Settings');
    expect(page).toMatch(/<div class="qr" role="img" aria-label="QR code of http:\/\/[^"]+\/__ca"><svg/);
    // Every inline script and style carries the response's nonce.
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    expect(page.match(/<script nonce="([^"]+)">/g)).toEqual([`<script nonce="${nonce}">`]);
  });

  it('hands out the certificate as DER and PEM, and nothing else of the CA', async () => {
    const der = await fetch(`${httpUrl}/__ca/studyhall-ca.crt`);
    expect(der.status).toBe(200);
    expect(der.headers.get('content-type')).toBe('application/x-x509-ca-cert');
    expect(der.headers.get('content-disposition')).toBe('attachment; filename="studyhall-ca.crt"');
    const bytes = Buffer.from(await der.arrayBuffer());
    expect(bytes.equals(server.identity.ca!.der)).toBe(true);
    const fingerprint = createHash('sha256').update(bytes).digest('hex').toUpperCase().match(/../g)!.join(':');
    expect(fingerprint).toBe(server.identity.ca!.fingerprint);
    const pem = await fetch(`${httpUrl}/__ca/studyhall-ca.pem`);
    expect(pem.headers.get('content-type')).toBe('application/x-pem-file');
    const text = await pem.text();
    expect(text).toMatch(/^-----BEGIN CERTIFICATE-----\n[\s\S]+\n-----END CERTIFICATE-----\n?$/);
    expect(text).not.toContain('PRIVATE KEY');
  });

  it('answers JSON to a program', async () => {
    const response = await fetch(`${httpUrl}/__ca`, { headers: { accept: 'application/json' } });
    expect(await response.json()).toMatchObject({
      mode: 'local-ca',
      fingerprint_sha256: server.identity.ca!.fingerprint,
      https_url: `https://127.0.0.1:${server.httpsPort}`,
      certificate: { der: '/__ca/studyhall-ca.crt', pem: '/__ca/studyhall-ca.pem' },
    });
  });

  it('is served over HTTPS as well, where the page knows the browser trusts it', async () => {
    const answer = await httpsGet(server.httpsPort, '/__ca', { ca: server.trusted, servername: 'studyhall.local' });
    expect(answer.status).toBe(200);
    expect(answer.body.toString()).toContain('You opened this page at the secure address');
    expect(answer.body.toString()).not.toContain('<script');
  });
});

describe('/__ca without a local CA', () => {
  it('says that HTTPS is off, and has no certificate to give', async () => {
    const plain = await startTestGateway();
    try {
      const file = await plain.app.inject({ url: '/__ca/studyhall-ca.crt' });
      expect(file.statusCode).toBe(404);
      expect(file.json()).toMatchObject({ error: 'https_off' });
      const page = await plain.app.inject({ url: '/__ca' });
      expect(page.statusCode).toBe(200);
      expect(page.body).toContain('This server does not serve HTTPS');
    } finally {
      await plain.close();
    }
  });
});

// A request from another device: the socket's peer must not be loopback. This machine's own LAN
// address stands in for the other device (none: skipped, and said so).
const lanAddress = Object.values(os.networkInterfaces())
  .flat()
  .find((entry) => entry?.family === 'IPv4' && !entry.internal)?.address;

describe('plain-HTTP page visits from another device', () => {
  let lan: HttpsTestGateway;
  let always: HttpsTestGateway;
  beforeAll(async () => {
    if (!lanAddress) return;
    lan = await startHttpsTestGateway({ host: '0.0.0.0', redirect: 'trusted' });
    always = await startHttpsTestGateway({ host: '0.0.0.0', redirect: 'always' });
  });
  afterAll(async () => {
    await lan?.close();
    await always?.close();
  });

  const visit = (target: HttpsTestGateway, requestPath: string, headers: Record<string, string> = {}, method = 'GET') =>
    rawRequest(`http://${lanAddress}:${target.httpPort}`, {
      method,
      path: requestPath,
      localAddress: lanAddress!,
      headers: { host: `studyhall.local:${target.httpPort}`, 'sec-fetch-mode': 'navigate', ...headers },
    });
  const TRUSTED = { cookie: 'theme=dark; studyhall_https=trusted' };

  it.skipIf(!lanAddress)('stay on HTTP while the browser has not shown that it trusts the certificate', async () => {
    const first = await visit(lan, '/focus');
    expect(first.status).toBe(200);
    expect(first.headers.location).toBeUndefined();
  });

  it.skipIf(!lanAddress)('move to the same page over HTTPS once it has (the cookie /__ca sets)', async () => {
    const moved = await visit(lan, '/focus?tab=timer', TRUSTED);
    expect(moved.status).toBe(307);
    expect(moved.headers.location).toBe(`https://studyhall.local:${lan.httpsPort}/focus?tab=timer`);
    expect(moved.headers['cache-control']).toBe('no-store');
  });

  it.skipIf(!lanAddress)('move every device with HTTPS_REDIRECT=always, except to /__ca', async () => {
    expect((await visit(always, '/')).headers.location).toBe(`https://studyhall.local:${always.httpsPort}/`);
    // However the path is spelled (the router may answer 404 for a spelling it does not route).
    for (const exempt of ['/__ca', '/__ca/studyhall-ca.crt', '/__CA/', '/x/../__ca', '/%5f_ca']) {
      const answer = await visit(always, exempt);
      expect({ exempt, location: answer.headers.location }).toEqual({ exempt, location: undefined });
    }
    expect((await visit(always, '/__ca/studyhall-ca.crt')).status).toBe(200);
  });

  it.skipIf(!lanAddress)(
    'never move what is not a page visit, nor to a host the certificate does not name',
    async () => {
      expect((await visit(always, '/api/health', { 'sec-fetch-mode': 'cors' })).status).not.toBe(307);
      expect(
        (await visit(always, '/api/pip/state', { 'sec-fetch-mode': '', accept: 'application/json' })).status,
      ).not.toBe(307);
      expect((await visit(always, '/api/pip/action', { 'content-type': 'application/json' }, 'POST')).status).not.toBe(
        307,
      );
      expect((await visit(always, '/', { host: `printer.example:${always.httpPort}` })).status).toBe(200);
    },
  );

  it('never move a visit from this computer (loopback), whatever the setting and the cookie', async () => {
    const target = lanAddress ? always : server;
    const fromHere = await rawRequest(`http://127.0.0.1:${target.httpPort}`, {
      path: '/',
      headers: { host: `studyhall.local:${target.httpPort}`, 'sec-fetch-mode': 'navigate', ...TRUSTED },
    });
    expect(fromHere.status).toBe(200);
  });

  it('are never moved when they already came over HTTPS', async () => {
    const secure = await httpsGet(server.httpsPort, '/', {
      ca: server.trusted,
      servername: 'studyhall.local',
      headers: { 'sec-fetch-mode': 'navigate', ...TRUSTED },
    });
    expect(secure.status).toBe(200);
  });
});

describe("the CA's key", () => {
  // DATA_DIR is `.data` inside the checkout here, as `npm start` has it by default.
  const SPELLINGS = [
    '/.data/tls/ca.key',
    '/../.data/tls/ca.key',
    '/%2e%2e/.data/tls/ca.key',
    '/%2E%2E/%2E%2E/.data/tls/ca.key',
    '/web/../.data/tls/ca.key',
    '/..%2f.data%2ftls%2fca.key',
    '/..\\.data\\tls\\ca.key',
    '//.data/tls/ca.key',
    '/__ca/ca.key',
    '/__ca/../.data/tls/ca.key',
    '/__ca/..%2f..%2f.data/tls/ca.key',
    '/__ca/studyhall-ca.crt/../../.data/tls/ca.key',
    '/__ca/%2e%2e/%2e%2e/.data/tls/ca.key',
    '/__ca/tls/ca.key',
    '/__ca/ca.crt',
    '/companion/../.data/tls/ca.key',
    '/companion/%2e%2e/%2e%2e/.data/tls/ca.key',
    '/assets/../../.data/tls/ca.key',
    '/sw.js/../.data/tls/ca.key',
    '/tls/ca.key',
    '/ca.key',
    '/.data/tls/server.key',
    '/__backend/../.data/tls/ca.key',
    '/__admin/../.data/tls/ca.key',
  ];

  it('is served by no route, over HTTP or HTTPS, under any spelling of its path', async () => {
    const keyPem = await readFile(path.join(server.dataDir, TLS_DIR, CA_KEY_FILE), 'utf8');
    const keyBody = keyPem.split('\n').slice(1, -2).join('');
    expect(keyBody.length).toBeGreaterThan(40);
    const keyDer = Buffer.from(keyBody, 'base64');
    const leaks = (body: string | Buffer) => {
      const buffer = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
      return (
        buffer.includes(keyDer) ||
        buffer.toString('latin1').includes(keyBody.slice(0, 40)) ||
        buffer.includes('PRIVATE KEY')
      );
    };
    for (const spelling of SPELLINGS) {
      const plain = await rawRequest(httpUrl, { path: spelling });
      expect({ spelling, leaks: leaks(plain.body) }).toEqual({ spelling, leaks: false });
      const secure = await rawRequestOverTls(spelling);
      expect({ spelling, over: 'https', leaks: leaks(secure) }).toEqual({ spelling, over: 'https', leaks: false });
    }
  });
});

/** The raw path over TLS (no client normalises it), trusting the CA. */
async function rawRequestOverTls(requestPath: string): Promise<Buffer> {
  const tls = await import('node:tls');
  return new Promise((resolve, reject) => {
    const socket = tls.connect(
      { host: '127.0.0.1', port: server.httpsPort, ca: server.trusted, servername: 'localhost' },
      () => {
        socket.write(`GET ${requestPath} HTTP/1.1\r\nhost: localhost:${server.httpsPort}\r\nconnection: close\r\n\r\n`);
      },
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks)));
    socket.on('error', reject);
  });
}
