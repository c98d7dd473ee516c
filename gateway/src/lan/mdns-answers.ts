// What the mDNS announcer answers (RFC 6762), decided apart from the network so it can be tested
// without one. It answers for one name (`studyhall.local`): A queries with this machine's LAN IPv4
// addresses, preferring those in the asker's own network (a laptop on two networks answers each
// with the address that network can reach). AAAA queries are answered with the IPv6 addresses only
// when the gateway listens on IPv6 (HOST=::); otherwise an NSEC record says at once that there is no
// AAAA, so a device does not wait for one and then try an address nothing listens on.
import { inNetwork, type LanAddress } from './lan-addresses.ts';

/**
 * The parts of a DNS record and packet used here, as dns-packet decodes and encodes them (its own
 * types do not admit the ANY question or a record read without knowing its type first).
 */
export interface MdnsRecord {
  name: string;
  type: string;
  class?: string;
  ttl?: number;
  flush?: boolean;
  data?: unknown;
}
export interface MdnsQuestion {
  name: string;
  type: string;
  class?: string;
}
export interface MdnsPacket {
  type?: 'query' | 'response';
  id?: number;
  flags?: number;
  questions?: MdnsQuestion[];
  answers?: MdnsRecord[];
  authorities?: MdnsRecord[];
  additionals?: MdnsRecord[];
}

export const MDNS_PORT = 5353;
/** RFC 6762 10: host address records live 120 s in a cache. */
export const HOST_RECORD_TTL_S = 120;
/** RFC 6762 6.7: a reply to a legacy (one-shot, unicast) query carries at most 10 s. */
const LEGACY_TTL_S = 10;

export interface AnswerFacts {
  /** `studyhall.local`, lower case. */
  hostName: string;
  addresses: LanAddress[];
  /** The gateway listens on IPv6 too (HOST=::). */
  answerIPv6: boolean;
}

export interface Reply {
  packet: MdnsPacket;
  /** Send to the asker alone (a legacy query, or a question with the unicast-response bit). */
  unicast: boolean;
}

/**
 * dns-packet reports a question's class with the unicast-response bit (RFC 6762 5.4) set as
 * `UNKNOWN_32769` instead of `IN`: both are the Internet class.
 */
function asksInternetClass(question: MdnsQuestion): { internet: boolean; unicastResponse: boolean } {
  const klass = String(question.class ?? 'IN');
  return { internet: klass === 'IN' || klass === 'UNKNOWN_32769', unicastResponse: klass === 'UNKNOWN_32769' };
}

/** Address records for `name`: those in the asker's network first; all of them when none is. */
export function addressRecords(
  facts: AnswerFacts,
  family: 'IPv4' | 'IPv6',
  asker: string | undefined,
  ttl: number,
  flush: boolean,
): MdnsRecord[] {
  const ofFamily = facts.addresses.filter((entry) => entry.family === family);
  const near = asker ? ofFamily.filter((entry) => inNetwork(asker, entry.cidr)) : [];
  const chosen = near.length > 0 ? near : ofFamily;
  return chosen.map((entry) => ({
    name: facts.hostName,
    type: family === 'IPv4' ? 'A' : 'AAAA',
    class: 'IN',
    ttl,
    flush,
    data: entry.address,
  }));
}

function noAaaaRecord(facts: AnswerFacts, ttl: number, flush: boolean): MdnsRecord {
  return {
    name: facts.hostName,
    type: 'NSEC',
    class: 'IN',
    ttl,
    flush,
    data: { nextDomain: facts.hostName, rrtypes: ['A'] },
  };
}

/** The records that say who `hostName` is (also what an announcement and a probe carry). */
export function ownRecords(facts: AnswerFacts, ttl = HOST_RECORD_TTL_S): MdnsRecord[] {
  const records = addressRecords(facts, 'IPv4', undefined, ttl, true);
  if (facts.answerIPv6) records.push(...addressRecords(facts, 'IPv6', undefined, ttl, true));
  return records;
}

/** The reply to a query, or undefined when it asks nothing about our name. */
export function replyTo(
  query: MdnsPacket,
  source: { address: string; port: number },
  facts: AnswerFacts,
): Reply | undefined {
  const legacy = source.port !== MDNS_PORT;
  const ttl = legacy ? LEGACY_TTL_S : HOST_RECORD_TTL_S;
  const flush = !legacy;
  const answers: MdnsRecord[] = [];
  let unicast = legacy;
  const asked: MdnsQuestion[] = [];
  for (const question of query.questions ?? []) {
    const { internet, unicastResponse } = asksInternetClass(question);
    if (!internet || question.name.toLowerCase() !== facts.hostName) continue;
    const wantsA = question.type === 'A' || question.type === 'ANY';
    const wantsAaaa = question.type === 'AAAA' || question.type === 'ANY';
    if (!wantsA && !wantsAaaa) continue;
    asked.push(question);
    unicast ||= unicastResponse;
    if (wantsA) answers.push(...addressRecords(facts, 'IPv4', source.address, ttl, flush));
    if (wantsAaaa && facts.answerIPv6) answers.push(...addressRecords(facts, 'IPv6', source.address, ttl, flush));
    else if (wantsAaaa) answers.push(noAaaaRecord(facts, ttl, flush));
  }
  // RFC 6762 7.1: an answer the asker already holds with at least half its lifetime is not repeated.
  const known = query.answers ?? [];
  const fresh = answers.filter(
    (answer) =>
      !known.some(
        (held) =>
          held.type === answer.type &&
          held.name.toLowerCase() === answer.name &&
          JSON.stringify(held.data) === JSON.stringify(answer.data) &&
          (held.ttl ?? 0) >= (answer.ttl ?? 0) / 2,
      ),
  );
  if (fresh.length === 0) return undefined;
  return {
    unicast,
    packet: {
      type: 'response',
      // A legacy asker is an ordinary DNS resolver: it needs its id and its question back.
      ...(legacy ? { id: query.id ?? 0, questions: asked } : { id: 0 }),
      flags: 1 << 10, // authoritative answer
      answers: fresh,
    },
  };
}

/**
 * Whether a response from another device claims our name for addresses that are not ours: the name
 * is taken on this network (RFC 6762 9).
 */
export function claimsOurName(response: MdnsPacket, facts: AnswerFacts, ourAddresses: Set<string>): boolean {
  const records = [...(response.answers ?? []), ...(response.additionals ?? [])];
  return records.some(
    (record) =>
      (record.type === 'A' || record.type === 'AAAA') &&
      record.name.toLowerCase() === facts.hostName &&
      (record.ttl ?? 0) > 0 &&
      !ourAddresses.has(String(record.data)),
  );
}
