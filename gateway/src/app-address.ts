// Where the app is for the students: the one address that links handed to other people and
// devices carry (invite links, the phone-pairing QR code, the links of auth mail), and the other
// addresses the app answers on. A teacher who opened the app at http://127.0.0.1:3000 must not hand
// out that address: on a student's device it is the student's own machine.
//
// The students' address is PUBLIC_URL when set (a reverse proxy, a host name); else, when the
// gateway is reachable from the network, its LAN address; else none (the server is reached from this
// computer only). The LAN address is plain HTTP unless every device is meant to trust the local CA
// (`HTTPS_REDIRECT=always`, managed devices): a link must open on any device, and on one that has not
// installed the CA yet an https link ends on a certificate warning. A device that trusts the CA is
// moved from plain HTTP to HTTPS by the redirect (https/https-redirect.ts), so it still lands there. The LAN address is the machine's, not `studyhall.local`: multicast DNS may be
// unavailable on the network or unanswered by a device, and an address always opens.
//
// The embedded localbase's GoTrue settings (SITE_URL, API_EXTERNAL_URL, uri_allow_list) follow from
// it, since the browser reaches localbase only through the gateway's /__backend proxy. Without this,
// a recovery link would point at localbase's loopback port, which no page of the app can use (its
// session would land on another origin), and the app's own redirect would be refused.
import { httpsOrigin, type CertificateNames } from './https/certificate-names.ts';
import { lanAddress } from './logging/status-block.ts';

const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);
const LOOPBACK_HOSTS = new Set(['localhost', '::1']);

export interface AppAddressFacts {
  /** Where the gateway listens: HOST, or the address it is bound to. */
  host: string;
  /** Its plain-HTTP port. */
  port: number;
  /** PUBLIC_URL: the app's address as students reach it (a reverse proxy, a host name). */
  publicUrl?: string | undefined;
  /** The machine's network address, when the gateway listens on every interface; for tests. */
  lan?: string | undefined;
  /**
   * HTTPS, when it is served: its port, the names its certificate is valid for, and whether links
   * lead there (only when every device is meant to trust the CA: `HTTPS_REDIRECT=always`).
   */
  https?: { port: number; names: CertificateNames; linksLeadHere?: boolean } | undefined;
}

export interface AuthMailAddresses {
  /** GoTrue's SITE_URL: where a link leads when it names no allowed redirect. */
  siteUrl: string;
  /** GoTrue's API_EXTERNAL_URL: the auth API as a browser reaches it, the start of every mailed link. */
  externalUrl: string;
  /**
   * Every other address the app answers on, as redirect globs: the loopback names and the LAN
   * address at PORT, and each name of the HTTPS certificate at the HTTPS port.
   */
  redirectAllowList: string[];
}

const inUrl = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host);

/** `http://<host>[:port]`, spelled as a URL's origin spells it. */
export const httpOrigin = (host: string, port: number) => `http://${inUrl(host)}${port === 80 ? '' : `:${port}`}`;

function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host) || host.startsWith('127.');
}

/** The host other devices reach the gateway at, or undefined when it listens on this computer only. */
function networkHost(facts: AppAddressFacts): string | undefined {
  if (WILDCARD_HOSTS.has(facts.host)) return 'lan' in facts ? facts.lan : lanAddress();
  return isLoopbackHost(facts.host) ? undefined : facts.host;
}

/** PUBLIC_URL without its trailing slashes (a path, for a proxy that serves the app under one, is kept). */
function publicAppUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * The students' address, without a trailing slash: PUBLIC_URL, else the LAN address (HTTPS when links
 * lead there and the certificate names it, else plain HTTP), else null when no other device can reach
 * the gateway (a loopback HOST, or no network address).
 */
export function studentsAppUrl(facts: AppAddressFacts): string | null {
  if (facts.publicUrl) return publicAppUrl(facts.publicUrl);
  const host = networkHost(facts);
  if (!host) return null;
  const secure =
    facts.https?.linksLeadHere && facts.https.port > 0
      ? httpsOrigin(facts.https.names, facts.https.port, host)
      : undefined;
  return secure ?? httpOrigin(host, facts.port);
}

/** Each name of the certificate at the HTTPS port (a wildcard name stays a one-label glob). */
function httpsOrigins(https: NonNullable<AppAddressFacts['https']>): string[] {
  if (https.port <= 0) return [];
  const suffix = https.port === 443 ? '' : `:${https.port}`;
  return [...https.names.ips, ...https.names.dns].map((name) => `https://${inUrl(name)}${suffix}`);
}

export function authMailAddresses(facts: AppAddressFacts): AuthMailAddresses {
  const everywhere = WILDCARD_HOSTS.has(facts.host);
  const lan = everywhere ? networkHost(facts) : undefined;
  // A mailed link is often opened on another device (a phone), where 127.0.0.1 is that device: it
  // starts at the students' address when there is one.
  const onThisComputer = httpOrigin(everywhere ? '127.0.0.1' : facts.host, facts.port);
  const siteUrl = studentsAppUrl(facts) ?? onThisComputer;
  const origins = new Set([
    onThisComputer,
    httpOrigin('127.0.0.1', facts.port),
    httpOrigin('localhost', facts.port),
    httpOrigin('::1', facts.port),
    ...(lan ? [httpOrigin(lan, facts.port)] : []),
    ...(facts.https ? httpsOrigins(facts.https) : []),
  ]);
  origins.delete(new URL(siteUrl).origin);
  return {
    siteUrl,
    externalUrl: `${siteUrl}/__backend`,
    redirectAllowList: [...origins].map((entry) => `${entry}/**`),
  };
}
