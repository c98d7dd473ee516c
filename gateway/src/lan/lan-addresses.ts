// The addresses at which other devices of the local network reach this machine: every address of
// an interface that is not loopback, leaving out IPv6 link-local addresses (a URL cannot name one
// without its interface) and the bridges and tunnels of containers, virtual machines and VPNs,
// which no phone in the classroom can reach. The HTTPS certificate names these addresses, the mDNS
// announcer answers with them and the status block prints them.
import os from 'node:os';

export interface LanAddress {
  /** The interface's name, as the system calls it (`wlan0`, `en0`, `Ethernet`). */
  interfaceName: string;
  address: string;
  family: 'IPv4' | 'IPv6';
  /** The address with its prefix (`192.168.1.20/24`): the network it shares with its neighbours. */
  cidr: string;
}

export type NetworkInterfaces = NodeJS.Dict<os.NetworkInterfaceInfo[]>;

// Interface names of container, VM and VPN bridges on Linux, macOS and Windows (Docker, Podman,
// libvirt, VirtualBox, VMware, LXC/LXD, Kubernetes CNIs, WireGuard, Tailscale, ZeroTier, tun/tap).
const VIRTUAL_INTERFACE =
  /^(docker|br-|veth|virbr|vboxnet|vmnet|lxcbr|lxdbr|cni|flannel|podman|cali|weave|kube|tailscale|zt|wg|tun|tap|utun|ham|vethernet)/i;

function isLinkLocalIPv6(address: string): boolean {
  return /^fe[89ab][0-9a-f]:/i.test(address);
}

export function isVirtualInterface(name: string): boolean {
  return VIRTUAL_INTERFACE.test(name);
}

/** Every LAN address of this machine, IPv4 first, each interface in the order the system lists them. */
export function lanAddresses(interfaces: NetworkInterfaces = os.networkInterfaces()): LanAddress[] {
  const found: LanAddress[] = [];
  for (const [interfaceName, addresses] of Object.entries(interfaces)) {
    if (isVirtualInterface(interfaceName)) continue;
    for (const entry of addresses ?? []) {
      if (entry.internal || (entry.family === 'IPv6' && isLinkLocalIPv6(entry.address))) continue;
      found.push({
        interfaceName,
        address: entry.address,
        family: entry.family,
        cidr: entry.cidr ?? `${entry.address}/${entry.family === 'IPv4' ? 32 : 128}`,
      });
    }
  }
  return [...found.filter((entry) => entry.family === 'IPv4'), ...found.filter((entry) => entry.family === 'IPv6')];
}

/** The first LAN IPv4 address: the one the status block prints for the other devices. */
export function firstLanIPv4(interfaces: NetworkInterfaces = os.networkInterfaces()): string | undefined {
  return lanAddresses(interfaces).find((entry) => entry.family === 'IPv4')?.address;
}

/** Whether `address` lies in the network `cidr` (same family only). */
export function inNetwork(address: string, cidr: string): boolean {
  const [network = '', prefixText = ''] = cidr.split('/');
  const a = addressBytes(address);
  const n = addressBytes(network);
  const prefix = Number(prefixText);
  if (!a || !n || a.length !== n.length || !Number.isInteger(prefix)) return false;
  for (let bit = 0; bit < prefix; bit += 1) {
    const byte = bit >> 3;
    const mask = 0x80 >> (bit & 7);
    if (((a[byte] ?? 0) & mask) !== ((n[byte] ?? 0) & mask)) return false;
  }
  return true;
}

/** An IPv4 or IPv6 address as bytes (IPv4-mapped IPv6 as IPv4); undefined when it is neither. */
export function addressBytes(address: string): number[] | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const text = mapped?.[1] ?? address;
  if (/^\d+\.\d+\.\d+\.\d+$/.test(text)) {
    const parts = text.split('.').map(Number);
    return parts.every((part) => part >= 0 && part <= 255) ? parts : undefined;
  }
  if (!text.includes(':')) return undefined;
  let hostname: string;
  try {
    hostname = new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head = '', tail] = hostname.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  if (groups.length !== 8) return undefined;
  return groups.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}
