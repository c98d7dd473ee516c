// Where a push may go: only to public internet addresses. A device token is a student's own text,
// so its endpoint can name anything; without this check the gateway would open connections (with
// retries) to services on this computer or its network: loopback, private and link-local ranges,
// carrier-grade NAT, multicast, and the special ranges that are not routed on the internet.
//
// IPv4: everything in the IANA special-purpose registry that is not globally reachable is refused.
// IPv6: only global unicast (2000::/3) is allowed, minus its special-purpose blocks; an IPv4-mapped
// address (::ffff:a.b.c.d) is judged as the IPv4 address it carries.
import { BlockList, isIP } from 'node:net';

const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

const NON_PUBLIC_IN_GLOBAL_V6: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo, benchmarking, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: carries an IPv4 address of any kind
  ['3fff::', 20], // documentation
];

const nonPublicV4 = new BlockList();
for (const [network, prefix] of NON_PUBLIC_V4) nonPublicV4.addSubnet(network, prefix, 'ipv4');
const globalUnicastV6 = new BlockList();
globalUnicastV6.addSubnet('2000::', 3, 'ipv6');
const nonPublicGlobalV6 = new BlockList();
for (const [network, prefix] of NON_PUBLIC_IN_GLOBAL_V6) nonPublicGlobalV6.addSubnet(network, prefix, 'ipv6');
const mappedV4 = new BlockList();
mappedV4.addSubnet('::ffff:0:0', 96, 'ipv6');

/** Whether an IP address (v4 or v6 text, without brackets) is a public internet address. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !nonPublicV4.check(address, 'ipv4');
  if (family !== 6) return false;
  // A zone index (fe80::1%eth0) only exists on link-local addresses.
  if (address.includes('%')) return false;
  // BlockList judges an IPv4-mapped address by the IPv4 rules.
  if (mappedV4.check(address, 'ipv6')) return !nonPublicV4.check(address, 'ipv6');
  return globalUnicastV6.check(address, 'ipv6') && !nonPublicGlobalV6.check(address, 'ipv6');
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Looks a host name up (all its addresses); injectable so tests can play DNS. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export class NonPublicEndpointError extends Error {
  readonly code = 'ENDPOINT_NOT_PUBLIC';
  constructor(
    readonly hostname: string,
    readonly addresses: string[],
  ) {
    super(
      `endpoint_refused: ${hostname} is not a public internet address${addresses.length && addresses[0] !== hostname ? ` (it resolves to ${addresses.join(', ')})` : ''}`,
    );
    this.name = 'NonPublicEndpointError';
  }
}

/** A URL's host without the brackets of an IPv6 literal. */
export function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

/**
 * The one address to connect to for a host: an IP literal as it is, a name looked up once. Every
 * address the name has must be public (a name that answers with a private address among public
 * ones is refused), and the caller connects to the address returned, never looking the name up
 * again: the answer that was checked is the answer that is used (no DNS rebinding in between).
 */
export async function resolvePublicAddress(hostname: string, resolve: HostResolver): Promise<ResolvedAddress> {
  const host = bareHost(hostname);
  const literal = isIP(host);
  const addresses = literal ? [{ address: host, family: literal }] : await resolve(host);
  if (addresses.length === 0 || addresses.some((entry) => !isPublicAddress(entry.address))) {
    throw new NonPublicEndpointError(
      host,
      addresses.map((entry) => entry.address),
    );
  }
  return addresses[0] as ResolvedAddress;
}
