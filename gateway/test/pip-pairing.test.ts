// PIP_PAIRING=on: two focus pages (real SSE connections and state posts) and two phones on one
// gateway. Each phone needs its page's code and reaches only that page; without or with a wrong
// code it is refused. With pairing off the pairing route says so and the shared channel is used.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PipChannel, PipRelay } from '../src/pip/pip-relay.ts';
import { guessingKey, normalizePairingCode, PAIRING_CODE_ALPHABET, PipPairings } from '../src/pip/pip-pairing.ts';
import { openSse, type SseClient } from './sse-client.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway({ config: { pipPairing: true } });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

function snapshotFor(subject: string, correct: number) {
  return {
    phase: 'focus',
    running: true,
    remainingMs: 600_000,
    completionAtMs: Date.now() + 600_000,
    subject: { id: subject.toLowerCase(), name: subject },
    task: null,
    attempts: { correct, incorrect: 0, skipped: 0 },
    target: null,
  };
}

interface FocusPage {
  code: string;
  channel: string;
  events: SseClient;
}

async function pair(body: unknown = {}): Promise<Response> {
  return fetch(`${baseUrl}/__pip/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

/** What a focus page does: pair, open its event stream, post its snapshot. */
async function openFocusPage(subject: string, correct: number): Promise<FocusPage> {
  const response = await pair();
  expect(response.status).toBe(201);
  const { code, channel } = (await response.json()) as { code: string; channel: string };
  const events = await openSse(`${baseUrl}/__pip/events?channel=${channel}`);
  await events.next('hello');
  const posted = await fetch(`${baseUrl}/__pip/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pip-channel': channel },
    body: JSON.stringify(snapshotFor(subject, correct)),
  });
  expect(posted.status).toBe(200);
  return { code, channel, events };
}

function phoneState(code?: string): Promise<Response> {
  return fetch(`${baseUrl}/api/pip/state`, { headers: code === undefined ? {} : { 'x-pip-code': code } });
}

function phoneAction(code: string | undefined, body: unknown): Promise<Response> {
  return fetch(`${baseUrl}/api/pip/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(code === undefined ? {} : { 'x-pip-code': code }) },
    body: JSON.stringify(body),
  });
}

describe('pairing a focus page', () => {
  it('hands out a 6-character code and a long channel token, and the same pair again for a known channel', async () => {
    const first = await pair();
    expect(first.status).toBe(201);
    const paired = await first.json();
    expect(paired).toMatchObject({ pairing: 'on', idleTimeoutMs: 600_000 });
    expect(normalizePairingCode(paired.code)).toBe(paired.code);
    expect(paired.channel.length).toBeGreaterThanOrEqual(32);

    const again = await pair({ channel: paired.channel });
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ code: paired.code, channel: paired.channel });

    const unknown = await pair({ channel: 'x'.repeat(32) });
    expect(unknown.status).toBe(201);
    expect((await unknown.json()).code).not.toBe(paired.code);
  });

  it('refuses a malformed pairing request', async () => {
    const response = await pair({ channel: 'short', extra: true });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe('invalid_request');
  });

  it('refuses state posts and event streams without a channel or with an unknown one', async () => {
    const body = JSON.stringify(snapshotFor('Biology', 0));
    const withoutChannel = await fetch(`${baseUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(withoutChannel.status).toBe(401);
    expect((await withoutChannel.json()).error).toBe('pairing_required');
    const unknownChannel = await fetch(`${baseUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pip-channel': 'y'.repeat(32) },
      body,
    });
    expect(unknownChannel.status).toBe(401);
    expect((await unknownChannel.json()).error).toBe('pairing_channel_unknown');

    const streamWithout = await fetch(`${baseUrl}/__pip/events`);
    expect(streamWithout.status).toBe(401);
    expect(streamWithout.headers.get('content-type')).toMatch(/application\/json/);
    expect((await streamWithout.json()).error).toBe('pairing_required');
    const streamUnknown = await fetch(`${baseUrl}/__pip/events?channel=${'y'.repeat(32)}`);
    expect(streamUnknown.status).toBe(401);
    expect((await streamUnknown.json()).error).toBe('pairing_channel_unknown');
  });
});

describe('phones with PIP_PAIRING=on', () => {
  it('refuses a phone without a code or with a wrong one, readable across origins', async () => {
    const without = await phoneState();
    expect(without.status).toBe(401);
    expect(without.headers.get('access-control-allow-origin')).toBe('*');
    expect((await without.json()).error).toBe('pairing_required');
    const wrongAction = await phoneAction('ZZZZZZ', { action: 'correct' });
    expect(wrongAction.status).toBe(401);
    expect((await wrongAction.json()).error).toBe('pairing_code_invalid');
    const notACode = await phoneState('hello world');
    expect(notACode.status).toBe(401);
  });

  it('lets the preflight carry the code header', async () => {
    const preflight = await gateway.app.inject({
      method: 'OPTIONS',
      url: '/api/pip/state',
      headers: {
        origin: 'https://localhost',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-pip-code',
      },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type, x-pip-code');
  });

  it('gives two phones each the timer and the actions of their own page only', async () => {
    const biology = await openFocusPage('Biology', 3);
    const history = await openFocusPage('History', 7);
    try {
      expect(biology.code).not.toBe(history.code);

      const biologyPhone = await phoneState(biology.code);
      expect(biologyPhone.status).toBe(200);
      expect(await biologyPhone.json()).toMatchObject({ subject: { name: 'Biology' }, attempts: { correct: 3 } });
      // Typed by hand: lower case and a dash in the middle still pair.
      const typed = `${history.code.slice(0, 3).toLowerCase()}-${history.code.slice(3).toLowerCase()}`;
      const historyPhone = await phoneState(typed);
      expect(await historyPhone.json()).toMatchObject({ subject: { name: 'History' }, attempts: { correct: 7 } });

      const sentToBiology = await phoneAction(biology.code, { action: 'correct' });
      expect(sentToBiology.status).toBe(202);
      const biologyAnswer = await sentToBiology.json();
      expect(biologyAnswer).toMatchObject({ accepted: true, delivered: 1 });
      expect((await biology.events.next('pip-action')).data).toMatchObject({ id: biologyAnswer.id, action: 'correct' });

      const sentToHistory = await phoneAction(history.code, { action: 'target', target: 40 });
      const historyAnswer = await sentToHistory.json();
      expect(historyAnswer).toMatchObject({ accepted: true, delivered: 1 });
      // History's next action is its own: Biology's correct never reached it.
      expect((await history.events.next('pip-action')).data).toMatchObject({
        id: historyAnswer.id,
        action: 'target',
        target: 40,
      });
      expect(history.events.events.filter((event) => event.event === 'pip-action')).toEqual([]);
      expect(biology.events.events.filter((event) => event.event === 'pip-action')).toEqual([]);

      // The shared channel of unpaired use is untouched by paired pages.
      expect((await gateway.relay.shared.latestSnapshot()).updatedAt).toBeNull();
    } finally {
      biology.events.close();
      history.events.close();
    }
  });

  it('greets a paired page with its own snapshot when it reconnects', async () => {
    const page = await openFocusPage('Chemistry', 2);
    page.events.close();
    const again = await openSse(`${baseUrl}/__pip/events?channel=${page.channel}`);
    try {
      expect((await again.next('hello')).data).toMatchObject({ snapshot: { subject: { name: 'Chemistry' } } });
    } finally {
      again.close();
    }
  });

  it('counts delivered only among the open streams of that page', async () => {
    const page = await openFocusPage('Physics', 0);
    const secondTab = await openSse(`${baseUrl}/__pip/events?channel=${page.channel}`);
    try {
      await secondTab.next('hello');
      const answer = await (await phoneAction(page.code, { action: 'skip' })).json();
      expect(answer.delivered).toBe(2);
    } finally {
      page.events.close();
      secondTab.close();
    }
  });

  it('locks out an address after too many wrong codes, even for a right one, and says when to retry', async () => {
    const strict = await startTestGateway({
      config: { pipPairing: true },
      relay: new PipRelay(60_000, 256 * 1024, { maxFailedCodes: 3 }),
    });
    try {
      const paired = (await strict.app.inject({ method: 'POST', url: '/__pip/pair', payload: {} })).json();
      for (let attempt = 0; attempt < 3; attempt++) {
        const wrong = await strict.app.inject({ url: '/api/pip/state', headers: { 'x-pip-code': 'AAAAAA' } });
        expect(wrong.statusCode).toBe(401);
      }
      const locked = await strict.app.inject({ url: '/api/pip/state', headers: { 'x-pip-code': paired.code } });
      expect(locked.statusCode).toBe(429);
      expect(locked.json()).toMatchObject({ error: 'rate_limited' });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await strict.close();
    }
  });
});

describe("phone presence on the page's stream", () => {
  it('tells a paired page when its phone arrives and when it has gone quiet, and no other page', async () => {
    const quick = await startTestGateway({
      config: { pipPairing: true },
      relay: new PipRelay(60_000, 256 * 1024, {}, 300),
    });
    const url = await quick.app.listen({ host: '127.0.0.1', port: 0 });
    const pairOn = async () =>
      (await (
        await fetch(`${url}/__pip/pair`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).json()) as { code: string; channel: string };
    const mine = await pairOn();
    const other = await pairOn();
    const myStream = await openSse(`${url}/__pip/events?channel=${mine.channel}`);
    const otherStream = await openSse(`${url}/__pip/events?channel=${other.channel}`);
    try {
      await myStream.next('hello');
      await otherStream.next('hello');
      // A refused phone (wrong code) is nobody's phone.
      expect((await fetch(`${url}/api/pip/state`, { headers: { 'x-pip-code': 'AAAAAA' } })).status).toBe(401);
      expect((await fetch(`${url}/api/pip/state`, { headers: { 'x-pip-code': mine.code } })).status).toBe(200);
      expect((await myStream.next('phone')).data).toMatchObject({ present: true });
      // Polls while present say nothing new.
      await fetch(`${url}/api/pip/state`, { headers: { 'x-pip-code': mine.code } });
      // A page that connects while the phone is there hears so right after its hello.
      const lateTab = await openSse(`${url}/__pip/events?channel=${mine.channel}`);
      await lateTab.next('hello');
      expect((await lateTab.next('phone')).data).toMatchObject({ present: true });
      lateTab.close();
      expect((await myStream.next('phone', 3_000)).data).toMatchObject({ present: false });
      expect(myStream.events.filter((event) => event.event === 'phone')).toEqual([]);
      expect(otherStream.events.filter((event) => event.event === 'phone')).toEqual([]);
    } finally {
      myStream.close();
      otherStream.close();
      await quick.close();
    }
  });

  it('tells pages on the shared channel when pairing is off', async () => {
    const plain = await startTestGateway({
      config: { pipPairing: false },
      relay: new PipRelay(60_000, 256 * 1024, {}, 300),
    });
    const url = await plain.app.listen({ host: '127.0.0.1', port: 0 });
    const stream = await openSse(`${url}/__pip/events`);
    try {
      await stream.next('hello');
      await fetch(`${url}/api/pip/action`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"action":"skip"}',
      });
      expect((await stream.next('phone')).data).toMatchObject({ present: true });
      expect((await stream.next('pip-action')).data).toMatchObject({ action: 'skip' });
      expect((await stream.next('phone', 3_000)).data).toMatchObject({ present: false });
    } finally {
      stream.close();
      await plain.close();
    }
  });
});

describe('with pairing off', () => {
  it('answers the pairing route with pairing off and ignores codes and channels', async () => {
    const plain = await startTestGateway({ config: { pipPairing: false } });
    try {
      const paired = await plain.app.inject({ method: 'POST', url: '/__pip/pair', payload: {} });
      expect(paired.statusCode).toBe(200);
      expect(paired.json()).toEqual({ pairing: 'off' });
      const posted = await plain.app.inject({
        method: 'POST',
        url: '/__pip/state',
        headers: { 'x-pip-channel': 'anything' },
        payload: snapshotFor('Art', 1),
      });
      expect(posted.statusCode).toBe(200);
      const state = await plain.app.inject({ url: '/api/pip/state', headers: { 'x-pip-code': 'WRONG1' } });
      expect(state.json()).toMatchObject({ subject: { name: 'Art' } });
    } finally {
      await plain.close();
    }
  });
});

describe('PipPairings', () => {
  const pairingOf = (result: ReturnType<PipPairings<PipChannel>['pair']>) =>
    'pairing' in result ? result.pairing : undefined;

  function registry(overrides: { maxPairings?: number } = {}) {
    let now = 1_000_000;
    const pairings = new PipPairings(() => new PipChannel(1024, () => 1), {
      now: () => now,
      idleTimeoutMs: 60_000,
      ...overrides,
    });
    return { pairings, advance: (ms: number) => (now += ms) };
  }

  it('draws codes only from the unambiguous alphabet', () => {
    const { pairings } = registry();
    for (let index = 0; index < 200; index++) {
      const code = pairingOf(pairings.pair())?.code ?? '';
      expect(code).toMatch(new RegExp(`^[${PAIRING_CODE_ALPHABET}]{6}$`));
    }
    expect(PAIRING_CODE_ALPHABET).not.toMatch(/[01IOL]/);
  });

  it('forgets a page idle for the timeout, so its code stops working, but keeps one with an open stream', () => {
    const { pairings, advance } = registry();
    const idle = pairingOf(pairings.pair());
    const watched = pairingOf(pairings.pair());
    if (!idle || !watched) throw new Error('pairing failed');
    // As if the page had its event stream open.
    Object.defineProperty(watched.channel, 'openStreams', { get: () => 1 });
    advance(59_999);
    pairings.forgetIdle();
    expect(pairings.byCode(idle.code)).toBeDefined();
    advance(1);
    pairings.forgetIdle();
    expect(pairings.byCode(idle.code)).toBeUndefined();
    expect(pairings.byChannelToken(idle.token)).toBeUndefined();
    expect(pairings.byCode(watched.code)).toBeDefined();
  });

  it('makes room by forgetting the longest-idle page, and refuses when every page has a stream', () => {
    const { pairings, advance } = registry({ maxPairings: 2 });
    const oldest = pairingOf(pairings.pair());
    advance(10);
    const newer = pairingOf(pairings.pair());
    advance(10);
    const third = pairingOf(pairings.pair());
    expect(third).toBeDefined();
    expect(pairings.byCode(oldest?.code ?? '')).toBeUndefined();
    expect(pairings.byCode(newer?.code ?? '')).toBeDefined();
    for (const pairing of [newer, third]) Object.defineProperty(pairing?.channel, 'openStreams', { get: () => 1 });
    expect(pairings.pair()).toEqual({ refused: 'server_full' });
  });

  it('counts wrong codes per IPv4 address and per IPv6 /64, an IPv4-mapped address as its IPv4 one', () => {
    expect(guessingKey('192.168.1.20')).toBe('192.168.1.20');
    expect(guessingKey('::ffff:192.168.1.20')).toBe('192.168.1.20');
    expect(guessingKey('2001:db8:5:7::1')).toBe('2001:db8:5:7::/64');
    expect(guessingKey('2001:0db8:0005:0007:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:5:7::/64');
    expect(guessingKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(guessingKey('2001:db8:0:1::1')).not.toBe(guessingKey('2001:db8:0:2::1'));
    expect(guessingKey('::1')).toBe('0:0:0:0::/64');
  });
});
