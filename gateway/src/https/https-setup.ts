// HTTPS as `npm start` sets it up: whether it is served (HTTPS=on and a gateway reachable from the
// network, or HTTPS_PORT chosen), with which certificate (the local CA's, or TLS_CERT_FILE), and
// the renewal that follows the machine's addresses.
import os from 'node:os';
import type { GatewayConfig } from '../config.ts';
import { lanAddresses, type LanAddress } from '../lan/lan-addresses.ts';
import { serverCertificateNames, type CertificateNames } from './certificate-names.ts';
import { HttpsService } from './https-service.ts';
import { TlsIdentity, type IdentitySource } from './tls-identity.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);
export const DEFAULT_MDNS_HOST_NAME = 'studyhall.local';
/** How often the addresses are compared with the certificate's names (and its end date). */
export const RENEWAL_CHECK_MS = 15_000;

/** The names this machine has now, for the server certificate. */
export function currentNames(
  config: Pick<GatewayConfig, 'mdns'>,
  lan: LanAddress[] = lanAddresses(),
): CertificateNames {
  return serverCertificateNames({
    lanAddresses: lan.map((entry) => entry.address),
    mdnsHostName: config.mdns?.hostName ?? DEFAULT_MDNS_HOST_NAME,
  });
}

/** Why HTTPS is not served with this configuration, or undefined when it is. */
export function httpsOffReason(config: Pick<GatewayConfig, 'https' | 'host'>): string | undefined {
  if (!config.https?.enabled) return 'HTTPS=off';
  if (LOOPBACK_HOSTS.has(config.host) && !config.https.portChosen && !config.https.certFile) {
    return `HOST=${config.host} keeps the server on this computer, which is a secure context already`;
  }
  return undefined;
}

export async function setUpHttps(config: GatewayConfig): Promise<HttpsService> {
  const offReason = httpsOffReason(config);
  if (offReason || !config.https) return HttpsService.off(offReason ?? 'HTTPS=off');
  const source: IdentitySource =
    config.https.certFile && config.https.keyFile
      ? { kind: 'own-certificate', certFile: config.https.certFile, keyFile: config.https.keyFile }
      : { kind: 'local-ca', dataDir: config.dataDir };
  const lan = lanAddresses();
  const identity = await TlsIdentity.open(source, currentNames(config, lan), { lan, hostName: os.hostname() });
  return new HttpsService(config.https.redirect, identity);
}

/** Checks the names and the end date every RENEWAL_CHECK_MS; returns the function that stops it. */
export function startCertificateRenewal(
  https: HttpsService,
  config: Pick<GatewayConfig, 'mdns'>,
  log: { info(message: string): void; warn(message: string): void },
  intervalMs = RENEWAL_CHECK_MS,
): () => void {
  const identity = https.identity;
  if (!identity) return () => {};
  let reportedLeftOut = '';
  const check = async () => {
    try {
      const result = await identity.refresh(currentNames(config));
      if (result.changed) {
        const names = identity.current().names;
        log.info(`https: new certificate for ${[...names.dns, ...names.ips].join(', ')}`);
      }
      const leftOut = result.leftOut.join(', ');
      if (leftOut && leftOut !== reportedLeftOut) {
        log.warn(
          `https: the local CA may not vouch for ${leftOut} (outside the names it was made for), so the certificate leaves them out: use another address, or TLS_CERT_FILE (docs/https-and-reverse-proxy.md)`,
        );
      }
      reportedLeftOut = leftOut;
    } catch (error) {
      log.warn(`https: cannot renew the certificate: ${(error as Error).message}`);
    }
  };
  const timer = setInterval(() => void check(), intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
