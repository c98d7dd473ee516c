// The certificate the HTTPS listener presents, and the one place that changes it. With the local
// CA: the server certificate in DATA_DIR/tls, issued again when the machine's names change (a new
// LAN address, another host name) or 30 days before it expires. With TLS_CERT_FILE / TLS_KEY_FILE:
// those files, read again when either changes on disk (a school renews its certificate).
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createSecureContext } from 'node:tls';
import { writePrivateFile } from '#db/private-file.ts';
import { splitByScope } from './ca-scope.ts';
import { sameNames, type CertificateNames } from './certificate-names.ts';
import { loadOrCreateLocalCa, tlsDir, type CaFacts, type LocalCa } from './local-ca.ts';
import { issueServerCertificate, namesIn } from './server-certificate.ts';
import { x509 } from './x509.ts';

export const SERVER_CERT_FILE = 'server.crt';
export const SERVER_KEY_FILE = 'server.key';
/** A certificate this close to its end is issued again. */
export const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

export interface PresentedCertificate {
  /** PEM: the server's certificate, then any intermediates. */
  certPem: string;
  keyPem: string;
  /** The names it is valid for. */
  names: CertificateNames;
  notAfter: Date;
}

export type IdentitySource =
  { kind: 'local-ca'; dataDir: string } | { kind: 'own-certificate'; certFile: string; keyFile: string };

export interface RefreshResult {
  changed: boolean;
  /** Names of this machine that the local CA may not vouch for (outside its name constraints). */
  leftOut: string[];
}

export class TlsIdentity {
  private constructor(
    readonly source: IdentitySource,
    /** Undefined with a certificate of one's own. */
    readonly ca: LocalCa | undefined,
    private presented: PresentedCertificate,
    private ownFilesStamp: string,
    private leftOutNames: string[],
  ) {}

  private readonly listeners = new Set<(certificate: PresentedCertificate) => void>();

  static async open(source: IdentitySource, names: CertificateNames, facts: CaFacts): Promise<TlsIdentity> {
    if (source.kind === 'own-certificate') {
      const { certificate, stamp } = await readOwnCertificate(source.certFile, source.keyFile);
      return new TlsIdentity(source, undefined, certificate, stamp, []);
    }
    const ca = await loadOrCreateLocalCa(source.dataDir, facts);
    const identity = new TlsIdentity(source, ca, await readIssued(source.dataDir, ca), '', []);
    await identity.refresh(names, facts.now);
    return identity;
  }

  current(): PresentedCertificate {
    return this.presented;
  }

  /** Names of this machine left out of the certificate because the CA may not vouch for them. */
  leftOut(): string[] {
    return this.leftOutNames;
  }

  /** Called with every new certificate (the listener swaps it in without a restart). */
  onChange(listener: (certificate: PresentedCertificate) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Issues or reads the certificate again when the names, the time or the files call for it. */
  async refresh(names: CertificateNames, now: Date = new Date()): Promise<RefreshResult> {
    let next: PresentedCertificate | undefined;
    if (this.source.kind === 'own-certificate') {
      const stamp = await filesStamp(this.source.certFile, this.source.keyFile);
      if (stamp !== this.ownFilesStamp) {
        const read = await readOwnCertificate(this.source.certFile, this.source.keyFile);
        next = read.certificate;
        this.ownFilesStamp = read.stamp;
      }
    } else if (this.ca) {
      const { inside, outside } = splitByScope(names, this.ca.scope);
      this.leftOutNames = outside;
      const due = this.presented.notAfter.getTime() - now.getTime() < RENEW_BEFORE_MS;
      if (due || !sameNames(this.presented.names, inside)) {
        next = await issueServerCertificate(this.ca, inside, now);
        const dir = tlsDir(this.source.dataDir);
        await writePrivateFile(path.join(dir, SERVER_KEY_FILE), next.keyPem);
        await writePrivateFile(path.join(dir, SERVER_CERT_FILE), next.certPem);
      }
    }
    if (!next) return { changed: false, leftOut: this.leftOutNames };
    this.presented = next;
    for (const listener of this.listeners) listener(next);
    return { changed: true, leftOut: this.leftOutNames };
  }
}

const NOTHING_ISSUED: PresentedCertificate = {
  certPem: '',
  keyPem: '',
  names: { dns: [], ips: [] },
  notAfter: new Date(0),
};

/** The server certificate issued at an earlier start, if it is there and still the CA's. */
async function readIssued(dataDir: string, ca: LocalCa): Promise<PresentedCertificate> {
  const dir = tlsDir(dataDir);
  try {
    const [certPem, keyPem] = await Promise.all([
      readFile(path.join(dir, SERVER_CERT_FILE), 'utf8'),
      readFile(path.join(dir, SERVER_KEY_FILE), 'utf8'),
    ]);
    const certificate = new x509.X509Certificate(certPem);
    if (!(await certificate.verify({ publicKey: ca.certificate.publicKey, signatureOnly: true })))
      return NOTHING_ISSUED;
    createSecureContext({ cert: certPem, key: keyPem });
    return { certPem, keyPem, names: namesIn(certificate), notAfter: certificate.notAfter };
  } catch {
    // Missing, unreadable, or not a pair: issued again by the first refresh.
    return NOTHING_ISSUED;
  }
}

async function filesStamp(certFile: string, keyFile: string): Promise<string> {
  const [cert, key] = await Promise.all([stat(certFile), stat(keyFile)]);
  return `${cert.mtimeMs}:${cert.size}:${key.mtimeMs}:${key.size}`;
}

async function readOwnCertificate(
  certFile: string,
  keyFile: string,
): Promise<{ certificate: PresentedCertificate; stamp: string }> {
  const stamp = await filesStamp(certFile, keyFile);
  const [certPem, keyPem] = await Promise.all([readFile(certFile, 'utf8'), readFile(keyFile, 'utf8')]);
  let certificate: x509.X509Certificate;
  try {
    certificate = new x509.X509Certificate(certPem);
  } catch (error) {
    throw new Error(`TLS_CERT_FILE ${certFile} holds no PEM certificate (${(error as Error).message})`);
  }
  try {
    createSecureContext({ cert: certPem, key: keyPem });
  } catch (error) {
    throw new Error(
      `TLS_KEY_FILE ${keyFile} is not the key of TLS_CERT_FILE ${certFile} (${(error as Error).message})`,
    );
  }
  return { certificate: { certPem, keyPem, names: namesIn(certificate), notAfter: certificate.notAfter }, stamp };
}
