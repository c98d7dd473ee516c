// Announces `studyhall.local` (MDNS_NAME) on the local network with multicast DNS, so a student can
// type a name instead of an address. One multicast-dns socket per LAN IPv4 address (lan-addresses.ts:
// never loopback, never a container or VPN bridge), each answering only askers in its own network
// (mdns-answers.ts decides what). On start it probes for the name as RFC 6762 8 asks: when another
// device already answers for it with other addresses, the name is taken, and the announcer answers
// nothing and says so (the IP addresses still work); the same goes for a device that claims it later.
// Where multicast cannot be used (no LAN, a port that cannot be bound, a network that refuses
// multicast), it says why instead. Addresses are checked every 10 s; a change is announced.
import makeMdns from 'multicast-dns';
import type { MulticastDNS } from 'multicast-dns';
import { inNetwork, lanAddresses, type LanAddress } from './lan-addresses.ts';
import { claimsOurName, MDNS_PORT, ownRecords, replyTo, type AnswerFacts, type MdnsPacket } from './mdns-answers.ts';

export type MdnsStatus =
  | { state: 'probing'; hostName: string }
  | { state: 'announcing'; hostName: string; addresses: string[] }
  | { state: 'conflict'; hostName: string; claimedBy: string }
  | { state: 'unavailable'; hostName: string; reason: string };

export interface MdnsAnnouncerOptions {
  /** `studyhall.local`. */
  hostName: string;
  /** The gateway listens on IPv6 too (HOST=::): AAAA queries get the IPv6 addresses. */
  answerIPv6: boolean;
  /** The LAN addresses (tests pass their own). */
  addresses?: () => LanAddress[];
  /** RFC 6762 8.1: three probes 250 ms apart. */
  probeIntervalMs?: number;
  watchIntervalMs?: number;
  log: { warn(message: string): void };
}

export interface MdnsAnnouncer {
  status(): MdnsStatus;
  stop(): Promise<void>;
}

interface Responder {
  entry: LanAddress;
  mdns: MulticastDNS;
  /** Why this socket cannot be used, once it cannot. */
  failure?: string;
}

type Source = { address: string; port: number };

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startMdnsAnnouncer(options: MdnsAnnouncerOptions): Promise<MdnsAnnouncer> {
  const hostName = options.hostName.toLowerCase();
  const listAddresses = options.addresses ?? (() => lanAddresses());
  const probeIntervalMs = options.probeIntervalMs ?? 250;
  let addresses: LanAddress[] = [];
  let responders: Responder[] = [];
  let status: MdnsStatus = { state: 'probing', hostName };
  let stopped = false;
  const facts = (): AnswerFacts => ({ hostName, addresses, answerIPv6: options.answerIPv6 });
  const isOurs = (address: string) => addresses.some((entry) => entry.address === address);

  const taken = (claimedBy: string) => {
    if (status.state === 'conflict') return;
    status = { state: 'conflict', hostName, claimedBy };
    options.log.warn(
      `mDNS: ${hostName} is already used by another device on this network (${claimedBy}), so studyhall does not answer for it: set MDNS_NAME to another name. The IP addresses still work.`,
    );
  };

  const open = (entry: LanAddress): Promise<Responder> =>
    new Promise((resolve) => {
      const mdns = makeMdns({
        interface: entry.address,
        bind: '0.0.0.0',
        port: MDNS_PORT,
        reuseAddr: true,
        loopback: true,
      });
      const responder: Responder = { entry, mdns };
      mdns.once('error', (error: Error) => {
        responder.failure ??= error.message;
        resolve(responder);
      });
      // multicast-dns reports a refused group membership (a network without multicast) as a warning.
      mdns.on('warning', (error: Error) => {
        if ('syscall' in error && /addMembership|setMulticastInterface/.test(String(error.syscall)))
          responder.failure ??= error.message;
      });
      mdns.on('query', (query: MdnsPacket, source: Source) => {
        // Every socket hears the queries of every network: each answers its own network only.
        if (status.state !== 'announcing' || isOurs(source.address) || !inNetwork(source.address, entry.cidr)) return;
        const reply = replyTo(query, source, facts());
        if (reply) mdns.respond(reply.packet as never, reply.unicast ? source : undefined);
      });
      mdns.on('response', (response: MdnsPacket, source: Source) => {
        if (!isOurs(source.address) && claimsOurName(response, facts(), new Set(addresses.map((own) => own.address))))
          taken(source.address);
      });
      mdns.once('ready', () => resolve(responder));
    });

  /** Sends our records on each socket (those of its own network), reporting a socket that cannot send. */
  const announce = (live: Responder[], ttl?: number) =>
    Promise.all(
      live.map(
        (responder) =>
          new Promise<void>((resolve) => {
            const records = ownRecords(facts(), ttl).filter((record) =>
              inNetwork(String(record.data), responder.entry.cidr),
            );
            responder.mdns.respond({ answers: records } as never, (error?: Error | null) => {
              if (error && !responder.failure) {
                responder.failure = error.message;
                options.log.warn(
                  `mDNS: cannot announce on ${responder.entry.interfaceName} (${error.message}): use the IP address there`,
                );
              }
              resolve();
            });
          }),
      ),
    );

  const start = async () => {
    addresses = listAddresses();
    status = { state: 'probing', hostName };
    responders = await Promise.all(addresses.filter((entry) => entry.family === 'IPv4').map(open));
    const live = () => responders.filter((responder) => !responder.failure);
    if (responders.length === 0) {
      status = { state: 'unavailable', hostName, reason: 'this machine has no LAN address' };
      return;
    }
    // RFC 6762 8.1: ask for the name three times; an answer from another device means it is taken.
    for (let round = 0; round < 3 && !stopped; round += 1) {
      for (const { mdns } of live()) mdns.query({ questions: [{ name: hostName, type: 'ANY' }] } as never);
      await delay(probeIntervalMs);
    }
    await delay(probeIntervalMs);
    // A response handler may have found the name taken meanwhile.
    if ((status as MdnsStatus).state === 'conflict' || stopped) return;
    if (live().length === 0) {
      status = { state: 'unavailable', hostName, reason: responders[0]?.failure ?? 'no socket' };
      return;
    }
    status = { state: 'announcing', hostName, addresses: live().map((responder) => responder.entry.address) };
    // RFC 6762 8.3: announced twice, a second apart.
    await announce(live());
    setTimeout(() => void (status.state === 'announcing' && announce(live())), 1000).unref();
  };

  const close = async (sayGoodbye: boolean) => {
    const closing = responders;
    responders = [];
    // RFC 6762 10.1: the same records with a TTL of 0 tell every cache that the name is gone.
    if (sayGoodbye && status.state === 'announcing')
      await announce(
        closing.filter((responder) => !responder.failure),
        0,
      );
    await Promise.all(
      closing.map((responder) => new Promise<void>((resolve) => responder.mdns.destroy(() => resolve()))),
    );
  };

  await start();
  const key = (list: LanAddress[]) =>
    list
      .map((entry) => entry.cidr)
      .sort()
      .join(' ');
  let restarting = false;
  const watch = setInterval(() => {
    if (stopped || restarting || status.state === 'conflict' || key(listAddresses()) === key(addresses)) return;
    restarting = true;
    void close(false)
      .then(() => (stopped ? undefined : start()))
      .finally(() => (restarting = false));
  }, options.watchIntervalMs ?? 10_000);
  watch.unref();

  return {
    status: () => status,
    async stop() {
      stopped = true;
      clearInterval(watch);
      await close(true);
    },
  };
}
