// The names the server's certificate is made for: every name a student's device may use to reach
// this machine. Loopback (localhost, 127.0.0.1, ::1) for the owner's own browser; each LAN address;
// the mDNS name students type (`studyhall.local`); the machine's host name, bare and with `.local`
// (the name the system's own mDNS responder, Avahi or Bonjour, may already announce).
import os from 'node:os';
import { addressBytes } from '../lan/lan-addresses.ts';

export interface CertificateNames {
  /** DNS names, lower case, sorted. */
  dns: string[];
  /** IP addresses in their canonical spelling, sorted. */
  ips: string[];
}

const DNS_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** An IP address as certificates and URLs spell it (`::1`, `fd00::2`, `192.168.1.20`). */
export function canonicalIp(address: string): string | undefined {
  const bytes = addressBytes(address);
  if (!bytes) return undefined;
  if (bytes.length === 4) return bytes.join('.');
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}

export function isDnsName(name: string): boolean {
  return DNS_NAME.test(name);
}

export interface NameFacts {
  /** LAN addresses (lan-addresses.ts). */
  lanAddresses: string[];
  /** `studyhall.local`, or the MDNS_NAME chosen. */
  mdnsHostName: string;
  /** os.hostname() by default. */
  hostName?: string;
}

export function serverCertificateNames(facts: NameFacts): CertificateNames {
  const host = (facts.hostName ?? os.hostname()).trim().toLowerCase().replace(/\.$/, '');
  const dns = new Set(['localhost', facts.mdnsHostName.toLowerCase()]);
  if (isDnsName(host)) {
    dns.add(host);
    if (!host.includes('.')) dns.add(`${host}.local`);
  }
  const ips = new Set<string>();
  for (const address of ['127.0.0.1', '::1', ...facts.lanAddresses]) {
    const canonical = canonicalIp(address);
    if (canonical) ips.add(canonical);
  }
  return { dns: [...dns].sort(), ips: [...ips].sort() };
}

export function sameNames(a: CertificateNames, b: CertificateNames): boolean {
  const key = (names: CertificateNames) => JSON.stringify([[...names.dns].sort(), [...names.ips].sort()]);
  return key(a) === key(b);
}

/** Whether a URL's host name (`studyhall.local`, `192.168.1.20`, `[fd00::2]`) is one of `names`. */
export function namesCover(names: CertificateNames, hostname: string): boolean {
  const bare = hostname
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase()
    .replace(/\.$/, '');
  const ip = canonicalIp(bare);
  if (ip) return names.ips.includes(ip);
  return names.dns.some(
    (name) =>
      name === bare ||
      // A wildcard of a certificate of one's own covers exactly one more label.
      (name.startsWith('*.') && bare.endsWith(name.slice(1)) && !bare.slice(0, -name.length + 1).includes('.')),
  );
}

/**
 * `https://<host>[:port]` for a host name or address (`studyhall.local`, `192.168.1.20`, `fd00::2`
 * or `[fd00::2]`) that `names` cover, spelled as a URL spells it; undefined when they do not, since
 * a browser would warn there.
 */
export function httpsOrigin(names: CertificateNames, port: number, host: string): string | undefined {
  if (!namesCover(names, host)) return undefined;
  const bare = host.replace(/^\[(.*)\]$/, '$1').replace(/\.$/, '');
  const ip = canonicalIp(bare);
  const shown = ip ? (ip.includes(':') ? `[${ip}]` : ip) : bare.toLowerCase();
  return `https://${shown}${port === 443 ? '' : `:${port}`}`;
}
