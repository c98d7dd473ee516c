// The timer relay across a district (docs/deployment.md): two servers on one PostgreSQL, each with
// its own localbase and gateway, with pairing on. A focus page pairs on server B and holds its event
// stream there; its phone uses the code on server A. The phone's actions reach the page's stream on
// B within 200 ms, the snapshots the page posts on B reach the phone on A (a waiting phone at once),
// and wrong codes spread over both servers spend one budget per address and one for all addresses.
// An action whose event a server missed (its listening connection dropped) reaches the page once the
// server listens again.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAIRING_CODE_ALPHABET } from '#contracts/pip-pairing.ts';
import { startDistrict, type District, type DistrictServer } from '#tools/testing/district-servers.ts';
import { GATEWAY_NOTIFY_CHANNEL } from '../src/district/database-shared-state.ts';
import { sharedKey } from '../src/district/shared-state.ts';
import { SharedPipRelay } from '../src/pip/shared-pip-relay.ts';
import { RELAXED_DEADLINES } from './helpers.ts';
import { openSse, type SseClient } from './sse-client.ts';

/** How long a phone's action may take to reach the page's stream on the other server. */
const ACTION_LATENCY_BUDGET_MS = 200;
const MAX_WRONG_CODES = 20;
const MAX_WRONG_CODES_IN_ALL = 100;
const PAGE_ADDRESS = '10.3.0.1';
const PHONE_ADDRESS = '10.3.0.2';

let district: District;
let a: DistrictServer;
let b: DistrictServer;
let page: { code: string; channel: string; events: SseClient };

beforeAll(async () => {
  district = await startDistrict({ config: { pipPairing: true }, gateway: RELAXED_DEADLINES });
  [a, b] = district.servers as [DistrictServer, DistrictServer];
}, 240_000);

afterAll(async () => {
  page?.events.close();
  await district?.close();
}, 60_000);

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

/** A well-formed code that no page shows (one page is live: the odds of a hit are 1 in 887 million). */
function wrongCode(index: number): string {
  const letter = (position: number) => PAIRING_CODE_ALPHABET[position % PAIRING_CODE_ALPHABET.length];
  return `ZZZZ${letter(index)}${letter(Math.floor(index / PAIRING_CODE_ALPHABET.length))}`;
}

function phoneState(app: FastifyInstance, code: string, ip = PHONE_ADDRESS, after?: number) {
  const query = after === undefined ? '' : `?after=${after}`;
  return app.inject({ url: `/api/pip/state${query}`, remoteAddress: ip, headers: { 'x-pip-code': code } });
}

function phoneAction(app: FastifyInstance, code: string, body: object, ip = PHONE_ADDRESS) {
  return app.inject({
    method: 'POST',
    url: '/api/pip/action',
    remoteAddress: ip,
    headers: { 'x-pip-code': code },
    payload: body,
  });
}

function postState(app: FastifyInstance, channel: string, subject: string, correct: number) {
  return app.inject({
    method: 'POST',
    url: '/__pip/state',
    remoteAddress: PAGE_ADDRESS,
    headers: { 'x-pip-channel': channel },
    payload: snapshotFor(subject, correct),
  });
}

describe('the timer relay of two servers on one database', () => {
  it('uses the shared relay on both servers', () => {
    expect(a.gateway.relay).toBeInstanceOf(SharedPipRelay);
    expect(b.gateway.relay).toBeInstanceOf(SharedPipRelay);
  });

  it("relays a phone's actions on A to the page's stream on B within 200 ms", async () => {
    const paired = await b.gateway.app.inject({
      method: 'POST',
      url: '/__pip/pair',
      remoteAddress: PAGE_ADDRESS,
      payload: {},
    });
    expect(paired.statusCode, paired.body).toBe(201);
    const { code, channel } = paired.json() as { code: string; channel: string };
    page = { code, channel, events: await openSse(`${b.url}/__pip/events?channel=${channel}`) };
    expect((await page.events.next('hello')).data).toMatchObject({ snapshot: { phase: 'idle', updatedAt: null } });

    const state = await phoneState(a.gateway.app, code);
    expect(state.statusCode, state.body).toBe(200);
    expect(state.json()).toMatchObject({ phase: 'idle', updatedAt: null });
    // The page on B hears that a phone, which asked A, follows it.
    expect((await page.events.next('phone')).data).toMatchObject({ present: true });

    const latencies: number[] = [];
    for (const action of ['correct', 'incorrect', 'skip', 'undo', 'start'] as const) {
      const started = performance.now();
      const answer = await phoneAction(a.gateway.app, code, { action });
      const relayed = await page.events.next('pip-action');
      latencies.push(Math.round(performance.now() - started));
      expect(answer.statusCode, answer.body).toBe(202);
      expect(answer.json()).toMatchObject({ accepted: true, delivered: 1 });
      expect(relayed.data).toMatchObject({ id: answer.json().id, action });
    }
    expect(Math.max(...latencies), `latencies: ${latencies.join(', ')} ms`).toBeLessThan(ACTION_LATENCY_BUDGET_MS);
    // Each action once: none was relayed twice.
    expect(page.events.events.filter((event) => event.event === 'pip-action')).toEqual([]);
  });

  it('answers a phone on A with the snapshot the page posted on B, and wakes a waiting phone at once', async () => {
    const posted = await postState(b.gateway.app, page.channel, 'Anatomy', 3);
    expect(posted.statusCode, posted.body).toBe(200);
    const { updatedAt } = posted.json() as { updatedAt: number };
    const read = await phoneState(a.gateway.app, page.code);
    expect(read.json()).toMatchObject({ subject: { name: 'Anatomy' }, attempts: { correct: 3 }, updatedAt });

    // The phone on A shows that snapshot and waits for a newer one; the page posts on B.
    const started = performance.now();
    const waiting = phoneState(a.gateway.app, page.code, PHONE_ADDRESS, updatedAt);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect((await postState(b.gateway.app, page.channel, 'Anatomy', 4)).statusCode).toBe(200);
    const woken = await waiting;
    const waitedMs = performance.now() - started;
    expect(woken.json()).toMatchObject({ attempts: { correct: 4 } });
    expect(woken.json().updatedAt).toBeGreaterThan(updatedAt);
    // Well before the long poll's 2.5 s: the post's event woke it.
    expect(waitedMs, `answered after ${Math.round(waitedMs)} ms`).toBeLessThan(1_000);
  });

  it("relays an action whose event B missed once B's listening connection is back", async () => {
    // An action stored without its event, as when B's LISTEN connection was down when it was sent.
    const channel = await a.sharedState.call('gateway_relay_page', {
      p_token_key: sharedKey('relay-channel', page.channel),
    });
    const stored = (await a.sharedState.call('gateway_relay_send_action', {
      p_channel: channel,
      p_action: { action: 'pause' },
    })) as { id: number };
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(page.events.events.filter((event) => event.event === 'pip-action')).toEqual([]);
    // The listening connections drop; each server listens again and reads what it may have missed.
    await a.localbase.database.pool.query(
      `select pg_terminate_backend(pid) from pg_stat_activity where query = 'listen ${GATEWAY_NOTIFY_CHANNEL}'`,
    );
    expect((await page.events.next('pip-action', 5_000)).data).toMatchObject({ id: stored.id, action: 'pause' });
  });

  it('keeps the pairing and its code when the page pairs again through the other server', async () => {
    const again = await a.gateway.app.inject({
      method: 'POST',
      url: '/__pip/pair',
      remoteAddress: PAGE_ADDRESS,
      payload: { channel: page.channel },
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ code: page.code, channel: page.channel });
  });

  it('refuses a wrong code, and a post or stream with an unknown channel, on either server', async () => {
    for (const server of [a, b]) {
      const wrong = await phoneState(server.gateway.app, 'AAAAAA', '10.3.9.1');
      expect(wrong.statusCode).toBe(401);
      expect(wrong.json()).toMatchObject({ error: 'pairing_code_invalid' });
      expect(wrong.body).not.toContain('Anatomy');
      const post = await postState(server.gateway.app, 'z'.repeat(32), 'Anatomy', 1);
      expect(post.statusCode).toBe(401);
      expect(post.json().error).toBe('pairing_channel_unknown');
      const stream = await server.gateway.app.inject({ url: `/__pip/events?channel=${'z'.repeat(32)}` });
      expect(stream.statusCode).toBe(401);
    }
  });

  it('counts wrong codes spread over A and B against one budget per address, and one for all addresses', async () => {
    const guesser = '10.4.0.1';
    // One wrong code was counted from 10.3.9.1 on each server in the test before.
    const alreadyCounted = 2;
    for (let guess = 0; guess < MAX_WRONG_CODES; guess++) {
      const server = guess % 2 === 0 ? a : b;
      const wrong = await phoneState(server.gateway.app, wrongCode(guess), guesser);
      expect(wrong.statusCode, `guess ${guess + 1}: ${wrong.body}`).toBe(401);
    }
    for (const server of [a, b]) {
      // Locked out on both, the right code too, before it is looked up.
      const locked = await phoneState(server.gateway.app, page.code, guesser);
      expect(locked.statusCode, locked.body).toBe(429);
      expect(locked.json()).toMatchObject({ error: 'rate_limited', scope: 'address' });
      expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
      expect(locked.body).not.toContain('Anatomy');
    }

    // Many addresses, each under its own limit, spend the budget of all addresses together.
    const remaining = MAX_WRONG_CODES_IN_ALL - MAX_WRONG_CODES - alreadyCounted;
    for (let guess = 0; guess < remaining; guess++) {
      const server = guess % 2 === 0 ? b : a;
      const ip = `10.5.${Math.floor(guess / 10)}.${guess % 10}`;
      const wrong = await phoneState(server.gateway.app, wrongCode(guess), ip);
      expect(wrong.statusCode, `guess ${guess + 1} from ${ip}: ${wrong.body}`).toBe(401);
    }
    for (const server of [a, b]) {
      const newPhone = await phoneState(server.gateway.app, page.code, '10.6.0.1');
      expect(newPhone.statusCode, newPhone.body).toBe(429);
      expect(newPhone.json()).toMatchObject({ error: 'rate_limited', scope: 'server' });
      expect(newPhone.body).not.toContain('Anatomy');
      // The phone that used the code before keeps working on both servers.
      const knownPhone = await phoneState(server.gateway.app, page.code);
      expect(knownPhone.statusCode, knownPhone.body).toBe(200);
      expect(knownPhone.json()).toMatchObject({ subject: { name: 'Anatomy' } });
    }
  }, 60_000);
});
