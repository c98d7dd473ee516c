// A test gateway (helpers.ts) that also serves HTTPS, as `npm start` does: its local CA in a temp
// DATA_DIR (or a certificate of one's own), both listeners on free ports, and a fetch that trusts
// exactly that CA. close() stops both listeners and removes the temp dir.
import { readFile } from 'node:fs/promises';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import tls from 'node:tls';
import path from 'node:path';
import type { HttpsSettings } from '../src/config.ts';
import { serverCertificateNames } from '../src/https/certificate-names.ts';
import { listenHttps, type HttpsListener } from '../src/https/https-listener.ts';
import { HttpsService } from '../src/https/https-service.ts';
import { TlsIdentity, type IdentitySource } from '../src/https/tls-identity.ts';
import type { LanAddress } from '../src/lan/lan-addresses.ts';
import { makeFixtureRepo, makeTempDir, startTestGateway, type TestGateway } from './helpers.ts';

export interface HttpsTestGateway {
  gateway: TestGateway;
  https: HttpsService;
  identity: TlsIdentity;
  listener: HttpsListener;
  dataDir: string;
  httpPort: number;
  httpsPort: number;
  /** The CA certificate (PEM) a client trusts; with a certificate of one's own, that certificate. */
  trusted: string;
  close(): Promise<void>;
}

export const TEST_LAN: LanAddress[] = [
  { interfaceName: 'wlan0', address: '192.168.1.20', family: 'IPv4', cidr: '192.168.1.20/24' },
];

export async function startHttpsTestGateway(
  options: {
    host?: string;
    redirect?: HttpsSettings['redirect'];
    lan?: LanAddress[];
    ownCertificate?: { certFile: string; keyFile: string };
    /** Where DATA_DIR is, relative to the fixture checkout (`.data`, the default of npm start); else a temp dir. */
    dataDirInRepo?: string;
    gateway?: Parameters<typeof startTestGateway>[0];
  } = {},
): Promise<HttpsTestGateway> {
  const temp = await makeTempDir('https');
  const repoDir = path.join(temp.dir, 'repo');
  await makeFixtureRepo(repoDir);
  const dataDir = options.dataDirInRepo ? path.join(repoDir, options.dataDirInRepo) : path.join(temp.dir, 'data');
  const lan = options.lan ?? TEST_LAN;
  const source: IdentitySource = options.ownCertificate
    ? { kind: 'own-certificate', ...options.ownCertificate }
    : { kind: 'local-ca', dataDir };
  const names = serverCertificateNames({
    lanAddresses: lan.map((entry) => entry.address),
    mdnsHostName: 'studyhall.local',
    hostName: 'classroom-pc',
  });
  const identity = await TlsIdentity.open(source, names, { lan, hostName: 'classroom-pc' });
  const service = new HttpsService(options.redirect ?? 'trusted', identity);
  const gateway = await startTestGateway({ ...options.gateway, repoDir, https: service });
  const host = options.host ?? '127.0.0.1';
  await gateway.app.listen({ host, port: 0 });
  const listener = await listenHttps(gateway.app, identity, { host, port: 0 });
  service.listening(listener.port);
  const trusted = options.ownCertificate
    ? await readFile(options.ownCertificate.certFile, 'utf8')
    : (identity.ca?.pem ?? '');
  return {
    gateway,
    https: service,
    identity,
    listener,
    dataDir,
    httpPort: (gateway.app.server.address() as AddressInfo).port,
    httpsPort: listener.port,
    trusted,
    close: async () => {
      await gateway.close();
      await listener.close();
      await temp.remove();
    },
  };
}

/** GET over HTTPS to 127.0.0.1, naming `servername` in TLS and Host, trusting only `ca`. */
export function httpsGet(
  port: number,
  requestPath: string,
  options: { ca: string; servername?: string; headers?: Record<string, string> },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const servername = options.servername ?? 'localhost';
  return new Promise((resolve, reject) => {
    const request = https.get(
      {
        host: '127.0.0.1',
        port,
        path: requestPath,
        ca: options.ca,
        // SNI carries host names only; an address is checked against the certificate all the same.
        ...(net.isIP(servername) ? {} : { servername }),
        headers: { host: `${net.isIPv6(servername) ? `[${servername}]` : servername}:${port}`, ...options.headers },
        agent: false,
        // The name is checked against the certificate as a browser checks the name in its URL.
        checkServerIdentity: (_host, certificate) => tls.checkServerIdentity(servername, certificate),
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    request.on('error', reject);
  });
}
