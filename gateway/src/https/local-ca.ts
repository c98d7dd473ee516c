// The local certificate authority: made once per DATA_DIR, then kept. Its private key is written
// with mode 0600 to DATA_DIR/tls/ca.key and never leaves this module: nothing serves DATA_DIR, and
// /__ca hands out only the certificate. It is valid for 10 years, so a device that installed it
// once keeps trusting the server through every renewal of the server's own certificate.
import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writePrivateFile } from '#db/private-file.ts';
import type { LanAddress } from '../lan/lan-addresses.ts';
import { caScopeFor, nameConstraintsExtension, scopeOf, type CaScope } from './ca-scope.ts';
import { generateKeys, importPrivateKeyPem, privateKeyPem, randomSerial, SIGNING_ALGORITHM, x509 } from './x509.ts';

export const TLS_DIR = 'tls';
export const CA_CERT_FILE = 'ca.crt';
export const CA_KEY_FILE = 'ca.key';
const CA_LIFETIME_MS = 10 * 365 * 24 * 60 * 60 * 1000;

export interface LocalCa {
  certificate: x509.X509Certificate;
  /** Only for signing the server's certificate (server-certificate.ts). */
  signingKey: CryptoKey;
  /** The certificate as PEM and as DER, the two forms devices take. */
  pem: string;
  der: Buffer;
  /** SHA-256 of the DER, as `AB:CD:...`: what a device shows before it installs the certificate. */
  fingerprint: string;
  /** The names it may vouch for (its name constraints). */
  scope: CaScope | undefined;
}

export function tlsDir(dataDir: string): string {
  return path.join(dataDir, TLS_DIR);
}

export function sha256Fingerprint(der: Buffer): string {
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../g)!.join(':');
}

function fromFiles(pem: string, signingKey: CryptoKey): LocalCa {
  const certificate = new x509.X509Certificate(pem);
  const der = Buffer.from(certificate.rawData);
  return {
    certificate,
    signingKey,
    pem: certificate.toString('pem'),
    der,
    fingerprint: sha256Fingerprint(der),
    scope: scopeOf(certificate),
  };
}

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface CaFacts {
  lan: LanAddress[];
  hostName?: string;
  now?: Date;
}

/** The CA of this DATA_DIR: read from DATA_DIR/tls, or made there the first time. */
export async function loadOrCreateLocalCa(dataDir: string, facts: CaFacts): Promise<LocalCa> {
  const dir = tlsDir(dataDir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const certFile = path.join(dir, CA_CERT_FILE);
  const keyFile = path.join(dir, CA_KEY_FILE);
  const [certPem, keyPem] = await Promise.all([readIfPresent(certFile), readIfPresent(keyFile)]);
  if (certPem && keyPem) return fromFiles(certPem, await importPrivateKeyPem(keyPem));
  if (certPem || keyPem) {
    throw new Error(
      `${certPem ? keyFile : certFile} is missing beside ${certPem ? certFile : keyFile}: remove both to make a new CA (devices must then install the new one)`,
    );
  }

  const hostName = facts.hostName ?? os.hostname();
  const now = facts.now ?? new Date();
  const scope = caScopeFor({ lan: facts.lan, hostName });
  const keys = await generateKeys();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: [{ CN: [`studyhall local CA (${hostName.slice(0, 40)})`] }, { O: ['studyhall'] }],
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter: new Date(now.getTime() + CA_LIFETIME_MS),
    signingAlgorithm: SIGNING_ALGORITHM,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      nameConstraintsExtension(scope),
    ],
  });
  // The key first: a certificate without its key on disk would be refused at the next start.
  await writePrivateFile(keyFile, await privateKeyPem(keys.privateKey));
  await writePrivateFile(certFile, certificate.toString('pem'));
  return fromFiles(certificate.toString('pem'), await importPrivateKeyPem(await readFile(keyFile, 'utf8')));
}
