// The mDNS announcer. Its answers are decided by a pure function (mdns-answers.ts), tested first.
// Then the real thing over UDP multicast, without touching the real network: in network namespaces
// of their own (`unshare -rn`, as cap-sync.test.ts uses), this machine has a LAN interface and a
// Docker bridge, and a phone in a second namespace asks for studyhall.local over the link between
// them, as a phone on Wi-Fi would. Where namespaces cannot be made, that part is skipped and says so.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import type { LanAddress } from '../src/lan/lan-addresses.ts';
import { claimsOurName, replyTo, type AnswerFacts } from '../src/lan/mdns-answers.ts';

const ADDRESSES: LanAddress[] = [
  { interfaceName: 'wlan0', address: '192.168.1.20', family: 'IPv4', cidr: '192.168.1.20/24' },
  { interfaceName: 'eth0', address: '10.4.0.7', family: 'IPv4', cidr: '10.4.0.7/16' },
  { interfaceName: 'wlan0', address: 'fd12::20', family: 'IPv6', cidr: 'fd12::20/64' },
];
const FACTS: AnswerFacts = { hostName: 'studyhall.local', addresses: ADDRESSES, answerIPv6: false };
const PHONE = { address: '192.168.1.33', port: 5353 };
const query = (questions: { name: string; type: string; class?: string }[], extra = {}) => ({
  type: 'query' as const,
  id: 0,
  questions,
  ...extra,
});

describe('what the announcer answers', () => {
  it("answers an A query with the address in the asker's own network", () => {
    const reply = replyTo(query([{ name: 'StudyHall.local', type: 'A', class: 'IN' }]), PHONE, FACTS);
    expect(reply?.unicast).toBe(false);
    expect(reply?.packet.answers).toEqual([
      { name: 'studyhall.local', type: 'A', class: 'IN', ttl: 120, flush: true, data: '192.168.1.20' },
    ]);
  });

  it("answers with every IPv4 address when the asker's network is none of them", () => {
    const reply = replyTo(
      query([{ name: 'studyhall.local', type: 'A' }]),
      { address: '172.20.0.9', port: 5353 },
      FACTS,
    );
    expect(reply?.packet.answers?.map((answer) => answer.data)).toEqual(['192.168.1.20', '10.4.0.7']);
  });

  it('says at once that there is no AAAA while the gateway listens on IPv4 only, and gives it when it listens on IPv6', () => {
    const v4only = replyTo(query([{ name: 'studyhall.local', type: 'AAAA' }]), PHONE, FACTS);
    expect(v4only?.packet.answers).toEqual([
      expect.objectContaining({ type: 'NSEC', data: { nextDomain: 'studyhall.local', rrtypes: ['A'] } }),
    ]);
    const dual = replyTo(query([{ name: 'studyhall.local', type: 'AAAA' }]), PHONE, { ...FACTS, answerIPv6: true });
    expect(dual?.packet.answers?.map((answer) => [answer.type, answer.data])).toEqual([['AAAA', 'fd12::20']]);
  });

  it('answers a one-shot query from another port alone, with its id and question, and a short TTL', () => {
    const reply = replyTo(
      query([{ name: 'studyhall.local', type: 'A' }], { id: 77 }),
      { address: '192.168.1.33', port: 53011 },
      FACTS,
    );
    expect(reply?.unicast).toBe(true);
    expect(reply?.packet).toMatchObject({ id: 77, questions: [{ name: 'studyhall.local', type: 'A' }] });
    expect(reply?.packet.answers?.[0]).toMatchObject({ ttl: 10, flush: false });
    // A question with the unicast-response bit (dns-packet reads its class as UNKNOWN_32769).
    expect(
      replyTo(query([{ name: 'studyhall.local', type: 'A', class: 'UNKNOWN_32769' }]), PHONE, FACTS)?.unicast,
    ).toBe(true);
  });

  it('answers nothing about other names, other types, or what the asker already knows', () => {
    expect(replyTo(query([{ name: 'printer.local', type: 'A' }]), PHONE, FACTS)).toBeUndefined();
    expect(replyTo(query([{ name: 'studyhall.local', type: 'TXT' }]), PHONE, FACTS)).toBeUndefined();
    expect(replyTo(query([{ name: 'studyhall.local', type: 'A', class: 'CH' }]), PHONE, FACTS)).toBeUndefined();
    const known = { answers: [{ name: 'studyhall.local', type: 'A', ttl: 100, data: '192.168.1.20' }] };
    expect(replyTo(query([{ name: 'studyhall.local', type: 'A' }], known), PHONE, FACTS)).toBeUndefined();
  });

  it('counts a response as a claim on the name only when it gives addresses that are not ours', () => {
    const ours = new Set(['192.168.1.20', '10.4.0.7']);
    const answer = (data: string, ttl = 120) => ({
      type: 'response' as const,
      answers: [{ name: 'studyhall.local', type: 'A', ttl, data }],
    });
    expect(claimsOurName(answer('192.168.1.77'), FACTS, ours)).toBe(true);
    expect(claimsOurName(answer('192.168.1.20'), FACTS, ours)).toBe(false);
    expect(claimsOurName(answer('192.168.1.77', 0), FACTS, ours)).toBe(false);
  });
});

// Two namespaces, a veth pair between them, a bridge that must be left out. Kept in this shell
// script so that the test's processes never touch the machine's own network.
const SETUP = `
set -e
ip link set lo up
unshare -n sleep 60 &
PHONE_PID=$!
# The phone's namespace exists once its process has left ours.
until [ "$(readlink /proc/$PHONE_PID/ns/net)" != "$(readlink /proc/self/ns/net)" ]; do sleep 0.02; done
ip link add lan0 type veth peer name phone0
ip link set phone0 netns $PHONE_PID
ip addr add 10.77.0.1/24 dev lan0
ip link set lan0 up
ip link add docker0 type bridge
ip addr add 172.17.0.1/16 dev docker0
ip link set docker0 up
nsenter -t $PHONE_PID -n sh -c 'ip link set lo up && ip addr add 10.77.0.2/24 dev phone0 && ip link set phone0 up'
export PHONE_PID
"${process.execPath}" --import tsx gateway/test/fixtures/mdns-lan-scenario.ts
kill $PHONE_PID
`;

const namespaces = spawnSync(
  'unshare',
  ['-rn', 'sh', '-c', 'ip link add probe0 type veth peer name probe1 && unshare -n true'],
  {
    stdio: 'ignore',
  },
);
const canMakeNamespaces = namespaces.status === 0;

describe('the announcer on a network (namespaces)', () => {
  it.skipIf(!canMakeNamespaces)(
    'answers a phone on the LAN over multicast, leaves the Docker bridge out, detects a taken name and says goodbye',
    () => {
      const run = spawnSync('unshare', ['-rn', 'sh', '-c', SETUP], {
        cwd: repoRoot,
        encoding: 'utf8',
        timeout: 90_000,
      });
      const line = run.stdout.split('\n').find((text) => text.startsWith('RESULT '));
      if (!line) throw new Error(`no result:\n${run.stdout}\n${run.stderr}`);
      type Answers = { answers: { name: string; type: string; data: string; ttl: number; from: string }[] };
      const seen = JSON.parse(line.slice('RESULT '.length)) as {
        lan: string[];
        status: unknown;
        a: Answers;
        aaaa: Answers;
        legacy: unknown;
        other: Answers;
        taken: unknown;
        takenAnswers: Answers;
        goodbye: unknown;
        warnings: string[];
      };
      expect(seen.lan).toEqual(['lan0 10.77.0.1/24']);
      expect(seen.status).toEqual({ state: 'announcing', hostName: 'studyhall.local', addresses: ['10.77.0.1'] });
      // The answer to the query (and the second announcement, which may come in the same second).
      const a = seen.a.answers;
      expect(a.length).toBeGreaterThan(0);
      expect(
        new Set(
          a.map((answer) => `${answer.name} ${answer.type} ${answer.data} ttl ${answer.ttl} from ${answer.from}`),
        ),
      ).toEqual(new Set(['studyhall.local A 10.77.0.1 ttl 120 from 10.77.0.1']));
      expect(seen.aaaa.answers).toContainEqual(expect.objectContaining({ type: 'NSEC' }));
      expect(seen.legacy).toMatchObject({
        from: '10.77.0.1',
        id: 4242,
        answers: [expect.objectContaining({ data: '10.77.0.1', ttl: 10 })],
      });
      expect(seen.other.answers).toEqual([]);
      expect(seen.taken).toEqual({ state: 'conflict', hostName: 'taken.local', claimedBy: '10.77.0.2' });
      // Having found the name taken, studyhall does not answer for it (the phone does not hear its own answer).
      expect(seen.takenAnswers.answers).toEqual([]);
      expect(seen.goodbye).toMatchObject({ watched: 'studyhall.local', from: '10.77.0.1', ttl: 0, data: '10.77.0.1' });
      expect(seen.warnings).toEqual([
        expect.stringContaining('taken.local is already used by another device on this network (10.77.0.2)'),
      ]);
    },
    120_000,
  );
});

describe.skipIf(canMakeNamespaces)('without network namespaces', () => {
  it('cannot test the announcer over UDP here (unshare -rn with veth pairs is not allowed)', () => {
    expect(path.isAbsolute(repoRoot)).toBe(true);
  });
});
