// What the rest of the gateway knows about HTTPS: whether it is served and why not, the certificate
// (tls-identity.ts), the port it listens on once it does, and the HTTPS address of a host a
// visitor used. `/__ca`, the redirect of plain-HTTP visits and `/api/client-config` read it here.
import type { HttpsSettings } from '../config.ts';
import { httpsOrigin, type CertificateNames } from './certificate-names.ts';
import type { TlsIdentity } from './tls-identity.ts';

export type HttpsMode = 'off' | 'local-ca' | 'own-certificate';

export class HttpsService {
  /** Set once the HTTPS listener listens (https-listener.ts). */
  private port: number | undefined;

  constructor(
    readonly redirect: HttpsSettings['redirect'],
    /** Undefined when HTTPS is not served. */
    readonly identity: TlsIdentity | undefined,
    /** Why HTTPS is not served (a sentence), when it is not. */
    readonly offReason?: string,
  ) {}

  static off(reason: string): HttpsService {
    return new HttpsService('off', undefined, reason);
  }

  get mode(): HttpsMode {
    if (!this.identity) return 'off';
    return this.identity.ca ? 'local-ca' : 'own-certificate';
  }

  listening(port: number): void {
    this.port = port;
  }

  /** The HTTPS port, once listening. */
  get listeningPort(): number | undefined {
    return this.identity ? this.port : undefined;
  }

  /** The names the presented certificate is valid for. */
  names(): CertificateNames | undefined {
    return this.identity?.current().names;
  }

  /**
   * `https://<host>:<port>` for a Host header (or a bare host name) whose name the certificate
   * covers, so a browser that trusts the certificate opens it without a warning; undefined when
   * HTTPS is not served or the certificate does not name that host. This is the address to offer a
   * student who reached the app over plain HTTP.
   */
  urlFor(host: string | undefined): string | undefined {
    const port = this.listeningPort;
    const names = this.names();
    if (!port || !names || !host) return undefined;
    let hostname: string;
    try {
      hostname = new URL(`http://${host}`).hostname;
    } catch {
      return undefined;
    }
    return httpsOrigin(names, port, hostname);
  }
}
