// What the local certificate authority may vouch for, written into the CA itself as X.509 name
// constraints (RFC 5280 4.2.1.10), which browsers and phones check for every certificate under it.
// A student who installs the CA trusts it for the names of a local network only: `.local` names,
// `localhost`, this machine's host name, and private, link-local and loopback addresses, plus the
// networks this machine is on when it was created (a school network with public addresses). It
// cannot vouch for a bank, a mail provider or any other site on the internet, so its key, if it
// were ever stolen, could not be used against a student anywhere but on such a local network.
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  NameConstraints,
  id_ce_nameConstraints,
} from '@peculiar/asn1-x509';
import { AsnConvert } from '@peculiar/asn1-schema';
import { inNetwork, type LanAddress } from '../lan/lan-addresses.ts';
import { canonicalIp, isDnsName, type CertificateNames } from './certificate-names.ts';
import { x509 } from './x509.ts';

/** Private (RFC 1918, RFC 4193), shared (RFC 6598), link-local and loopback networks. */
export const LOCAL_NETWORKS = [
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '127.0.0.0/8',
  'fc00::/7',
  'fe80::/10',
  '::1/128',
];

export interface CaScope {
  /** DNS names (each with every name below it). */
  dns: string[];
  /** Networks, as CIDR. */
  networks: string[];
}

/** The scope of a CA made now: the local networks, the machine's own networks, its names. */
export function caScopeFor(facts: { lan: LanAddress[]; hostName: string }): CaScope {
  const networks = [...LOCAL_NETWORKS];
  for (const entry of facts.lan) {
    if (networks.some((network) => inNetwork(entry.address, network))) continue;
    networks.push(networkOf(entry.cidr));
  }
  const host = facts.hostName.trim().toLowerCase().replace(/\.$/, '');
  const dns = ['local', 'localhost', ...(isDnsName(host) && host !== 'local' && host !== 'localhost' ? [host] : [])];
  return { dns, networks: [...new Set(networks)] };
}

/** `192.0.2.2/24` -> `192.0.2.0/24`: the network part, as a name constraint must be written. */
function networkOf(cidr: string): string {
  const [address = '', prefixText = '32'] = cidr.split('/');
  const prefix = Number(prefixText);
  if (address.includes(':')) {
    const bytes = ipv6Bytes(address);
    const masked = bytes.map((byte, index) => maskByte(byte, prefix - index * 8));
    const groups = [];
    for (let index = 0; index < 16; index += 2)
      groups.push((((masked[index] ?? 0) << 8) | (masked[index + 1] ?? 0)).toString(16));
    return `${canonicalIp(groups.join(':'))}/${prefix}`;
  }
  const masked = address.split('.').map((part, index) => maskByte(Number(part), prefix - index * 8));
  return `${masked.join('.')}/${prefix}`;
}

function maskByte(byte: number, bitsLeft: number): number {
  if (bitsLeft >= 8) return byte;
  if (bitsLeft <= 0) return 0;
  return byte & (0xff << (8 - bitsLeft)) & 0xff;
}

function ipv6Bytes(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** The name constraints extension (critical, as RFC 5280 requires). */
export function nameConstraintsExtension(scope: CaScope): x509.Extension {
  const subtrees = [
    ...scope.dns.map((name) => new GeneralSubtree({ base: new GeneralName({ dNSName: name }) })),
    ...scope.networks.map((network) => new GeneralSubtree({ base: new GeneralName({ iPAddress: network }) })),
  ];
  const value = AsnConvert.serialize(new NameConstraints({ permittedSubtrees: new GeneralSubtrees(subtrees) }));
  return new x509.Extension(id_ce_nameConstraints, true, value);
}

/** The scope written in a CA certificate, read back; undefined when it has no name constraints. */
export function scopeOf(certificate: x509.X509Certificate): CaScope | undefined {
  const extension = certificate.getExtension(id_ce_nameConstraints);
  if (!extension) return undefined;
  const constraints = AsnConvert.parse(extension.value, NameConstraints);
  const scope: CaScope = { dns: [], networks: [] };
  for (const subtree of constraints.permittedSubtrees ?? []) {
    if (subtree.base.dNSName) scope.dns.push(subtree.base.dNSName);
    if (subtree.base.iPAddress) scope.networks.push(subtree.base.iPAddress);
  }
  return scope;
}

/** The names a certificate under this scope may carry, and those it may not. */
export function splitByScope(
  names: CertificateNames,
  scope: CaScope | undefined,
): { inside: CertificateNames; outside: string[] } {
  if (!scope) return { inside: names, outside: [] };
  const dnsInside = (name: string) => scope.dns.some((allowed) => name === allowed || name.endsWith(`.${allowed}`));
  const ipInside = (ip: string) => scope.networks.some((network) => inNetwork(ip, network));
  return {
    inside: { dns: names.dns.filter(dnsInside), ips: names.ips.filter(ipInside) },
    outside: [...names.dns.filter((name) => !dnsInside(name)), ...names.ips.filter((ip) => !ipInside(ip))],
  };
}
