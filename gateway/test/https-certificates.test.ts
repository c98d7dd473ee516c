// The local CA and the server certificate, checked the way a device checks them: a TLS client
// (OpenSSL, through Node) that trusts only the CA connects to the HTTPS listener under each name.
// The certificate names every LAN address, loopback, the host name and the .local name, chains to
// the CA, is issued again when an address is added or its end nears, and the CA may not vouch for
// any name on the internet (its name constraints are enforced by the client). The CA's key is 0600
// in DATA_DIR/tls and kept across restarts; a certificate of one's own replaces the CA.
import { execFileSync } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverCertificateNames } from '../src/https/certificate-names.ts';
import { CA_KEY_FILE, loadOrCreateLocalCa, TLS_DIR } from '../src/https/local-ca.ts';
import { issueServerCertificate } from '../src/https/server-certificate.ts';
import { RENEW_BEFORE_MS, TlsIdentity } from '../src/https/tls-identity.ts';
import type { LanAddress } from '../src/lan/lan-addresses.ts';
import { makeTempDir } from './helpers.ts';
import { httpsGet, startHttpsTestGateway, type HttpsTestGateway } from './https-helpers.ts';

const LAN: LanAddress[] = [
  { interfaceName: 'wlan0', address: '192.168.1.20', family: 'IPv4', cidr: '192.168.1.20/24' },
  { interfaceName: 'eth0', address: '10.4.0.7', family: 'IPv4', cidr: '10.4.0.7/16' },
  { interfaceName: 'wlan0', address: 'fd12:3456::20', family: 'IPv6', cidr: 'fd12:3456::20/64' },
];

const tlsError = (promise: Promise<unknown>) =>
  promise.then(
    () => 'connected',
    // OpenSSL's name-constraint failures reach Node as code UNSPECIFIED: the message says which.
    (error: NodeJS.ErrnoException) => (error.code === 'UNSPECIFIED' ? error.message : (error.code ?? error.message)),
  );

let server: HttpsTestGateway;
beforeAll(async () => {
  server = await startHttpsTestGateway({ lan: LAN });
});
afterAll(() => server?.close());

describe('the server certificate', () => {
  it('names every LAN address, loopback, the host name and the .local names, and chains to the CA', async () => {
    expect(server.identity.current().names).toEqual({
      dns: ['classroom-pc', 'classroom-pc.local', 'localhost', 'studyhall.local'],
      ips: ['10.4.0.7', '127.0.0.1', '192.168.1.20', '::1', 'fd12:3456::20'].sort(),
    });
    for (const name of [
      'studyhall.local',
      'localhost',
      'classroom-pc',
      'classroom-pc.local',
      '192.168.1.20',
      '10.4.0.7',
      'fd12:3456::20',
      '127.0.0.1',
    ]) {
      const answer = await httpsGet(server.httpsPort, '/__ca/probe', { ca: server.trusted, servername: name });
      expect({ name, status: answer.status }).toEqual({ name, status: 204 });
    }
  });

  it('is refused for a name it does not carry, and by a client that does not trust the CA', async () => {
    expect(
      await tlsError(httpsGet(server.httpsPort, '/', { ca: server.trusted, servername: 'studyhall.example' })),
    ).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    const other = await makeTempDir('other-ca');
    try {
      const stranger = await loadOrCreateLocalCa(other.dir, { lan: LAN, hostName: 'elsewhere' });
      expect(await tlsError(httpsGet(server.httpsPort, '/', { ca: stranger.pem, servername: 'studyhall.local' }))).toBe(
        'SELF_SIGNED_CERT_IN_CHAIN', // the handshake carries the CA after the server's certificate: a root it does not trust
      );
    } finally {
      await other.remove();
    }
  });

  it('is issued again when an address is added, and served at once without a restart', async () => {
    const added = '192.168.1.21';
    expect(await tlsError(httpsGet(server.httpsPort, '/', { ca: server.trusted, servername: added }))).toBe(
      'ERR_TLS_CERT_ALTNAME_INVALID',
    );
    const lan = [...LAN, { interfaceName: 'wlan1', address: added, family: 'IPv4' as const, cidr: `${added}/24` }];
    const names = serverCertificateNames({
      lanAddresses: lan.map((entry) => entry.address),
      mdnsHostName: 'studyhall.local',
      hostName: 'classroom-pc',
    });
    expect(await server.identity.refresh(names)).toEqual({ changed: true, leftOut: [] });
    expect(server.identity.current().names.ips).toContain(added);
    const answer = await httpsGet(server.httpsPort, '/__ca/probe', { ca: server.trusted, servername: added });
    expect(answer.status).toBe(204);
    // The same names again: nothing to issue.
    expect((await server.identity.refresh(names)).changed).toBe(false);
  });

  it('is issued again 30 days before it ends, and not sooner', async () => {
    const names = server.identity.current().names;
    const end = server.identity.current().notAfter.getTime();
    expect((await server.identity.refresh(names, new Date(end - RENEW_BEFORE_MS - 60_000))).changed).toBe(false);
    expect((await server.identity.refresh(names, new Date(end - RENEW_BEFORE_MS + 60_000))).changed).toBe(true);
    expect(server.identity.current().notAfter.getTime()).toBeGreaterThan(end);
  });

  it('leaves out an address the CA may not vouch for, and says which', async () => {
    const names = serverCertificateNames({
      lanAddresses: ['192.168.1.20', '203.0.113.9'],
      mdnsHostName: 'studyhall.local',
      hostName: 'classroom-pc',
    });
    const result = await server.identity.refresh(names);
    expect(result.leftOut).toEqual(['203.0.113.9']);
    expect(server.identity.current().names.ips).not.toContain('203.0.113.9');
  });
});

describe('the local CA', () => {
  it('cannot vouch for a site on the internet: a client refuses such a certificate under it', async () => {
    const ca = server.identity.ca!;
    expect(ca.scope?.dns).toEqual(['local', 'localhost', 'classroom-pc']);
    // A certificate for a bank, signed with the CA's own key, as a thief of that key would sign it.
    const forged = await issueServerCertificate(ca, { dns: ['bank.example'], ips: ['8.8.8.8'] });
    const impostor = https.createServer({ cert: forged.certPem, key: forged.keyPem }, (_request, response) =>
      response.end('ok'),
    );
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    try {
      const port = (impostor.address() as AddressInfo).port;
      expect(await tlsError(httpsGet(port, '/', { ca: ca.pem, servername: 'bank.example' }))).toBe(
        'permitted subtree violation',
      );
      expect(await tlsError(httpsGet(port, '/', { ca: ca.pem, servername: '8.8.8.8' }))).toBe(
        'permitted subtree violation',
      );
    } finally {
      impostor.close();
    }
  });

  it('keeps its key 0600 in DATA_DIR/tls (the folder 0700), and is the same CA after a restart', async () => {
    const dir = path.join(server.dataDir, TLS_DIR);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const file of [CA_KEY_FILE, 'server.key']) expect((await stat(path.join(dir, file))).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateLocalCa(server.dataDir, { lan: [] });
    expect(again.fingerprint).toBe(server.identity.ca!.fingerprint);
    expect(again.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('refuses to start with a certificate whose key is gone, rather than make a second CA silently', async () => {
    const temp = await makeTempDir('half-ca');
    try {
      await loadOrCreateLocalCa(temp.dir, { lan: LAN });
      await rm(path.join(temp.dir, TLS_DIR, CA_KEY_FILE));
      await expect(loadOrCreateLocalCa(temp.dir, { lan: LAN })).rejects.toThrow(
        /ca\.key is missing beside .*ca\.crt: remove both/,
      );
    } finally {
      await temp.remove();
    }
  });
});

describe('a certificate of one’s own (TLS_CERT_FILE, TLS_KEY_FILE)', () => {
  const makeCertificate = (dir: string, name: string) => {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-days',
        '2',
        '-keyout',
        path.join(dir, `${name}.key`),
        '-out',
        path.join(dir, `${name}.crt`),
        '-subj',
        `/CN=${name}`,
        '-addext',
        `subjectAltName=DNS:${name}`,
      ],
      { stdio: 'ignore' },
    );
    return { certFile: path.join(dir, `${name}.crt`), keyFile: path.join(dir, `${name}.key`) };
  };

  it('is served instead of a local CA, which is not made', async () => {
    const temp = await makeTempDir('own-cert');
    const own = makeCertificate(temp.dir, 'studyhall.school.example');
    const school = await startHttpsTestGateway({ ownCertificate: own });
    try {
      expect(school.identity.ca).toBeUndefined();
      expect(school.https.mode).toBe('own-certificate');
      expect(school.identity.current().names).toEqual({ dns: ['studyhall.school.example'], ips: [] });
      const answer = await httpsGet(school.httpsPort, '/__ca/probe', {
        ca: school.trusted,
        servername: 'studyhall.school.example',
      });
      expect(answer.status).toBe(204);
      await expect(stat(path.join(school.dataDir, TLS_DIR))).rejects.toThrow(/ENOENT/);
    } finally {
      await school.close();
      await temp.remove();
    }
  });

  it('is refused at start with a sentence when the key is not its key', async () => {
    const temp = await makeTempDir('own-cert-mismatch');
    try {
      const first = makeCertificate(temp.dir, 'a.school.example');
      const second = makeCertificate(temp.dir, 'b.school.example');
      await writeFile(path.join(temp.dir, 'note'), '');
      await expect(
        TlsIdentity.open(
          { kind: 'own-certificate', certFile: first.certFile, keyFile: second.keyFile },
          { dns: [], ips: [] },
          { lan: [] },
        ),
      ).rejects.toThrow(/TLS_KEY_FILE .*b\.school\.example\.key is not the key of TLS_CERT_FILE/);
    } finally {
      await temp.remove();
    }
  });
});
