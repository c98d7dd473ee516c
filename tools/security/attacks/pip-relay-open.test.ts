// attack: read and drive another student's timer from the LAN. With the relay's default (pairing
// off), GET /api/pip/state from any address with no login answered the running subject, task and
// counts, and POST /api/pip/action counted for whoever had a focus page open. Pairing is now on by
// default: without a paired code the phone routes answer 401 and touch no timer. And the code
// resists guessing: an address is refused after a few wrong codes (1,000 guesses from one address
// never reach the right one), and all addresses together share one budget of wrong codes, past
// which only phones paired before get in.
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '#gateway/src/config.ts';
import { PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#gateway/src/pip/pip-pairing.ts';
import { PipRelay } from '#gateway/src/pip/pip-relay.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { openSse, type SseClient } from '#gateway/test/sse-client.ts';

const STUDENT_PHONE = '192.168.1.21';
const ATTACKER = '192.168.1.66';
const PRIVATE_WORDS = ['Organic chemistry', 'Chapter 7 problem set', '"focus"'];

let gateway: TestGateway | undefined;
let stream: SseClient | undefined;
let clockMs = 1_000_000;

afterEach(async () => {
  stream?.close();
  stream = undefined;
  await gateway?.close();
  gateway = undefined;
});

/** A gateway configured as `npm start` configures it from an environment that says nothing about pairing. */
async function startWithDefaults(): Promise<{ gateway: TestGateway; url: string }> {
  const loaded = loadConfig({ HOME: '/home/student' });
  if (!loaded.ok) throw new Error(loaded.problems.join('\n'));
  gateway = await startTestGateway({
    config: { pipPairing: loaded.config.pipPairing },
    relay: new PipRelay(60_000, 256 * 1024, { now: () => clockMs }),
  });
  return { gateway, url: await gateway.app.listen({ host: '127.0.0.1', port: 0 }) };
}

/** A student's focus page: pairs, listens on its channel, posts a running session. */
async function openFocusPage(url: string): Promise<{ code: string; channel: string; events: SseClient }> {
  const paired = await fetch(`${url}/__pip/pair`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(paired.status).toBe(201);
  const { code, channel } = (await paired.json()) as { code: string; channel: string };
  stream = await openSse(`${url}/__pip/events?channel=${channel}`);
  await stream.next('hello');
  const posted = await fetch(`${url}/__pip/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-pip-channel': channel },
    body: JSON.stringify({
      phase: 'focus',
      running: true,
      remainingMs: 900_000,
      completionAtMs: Date.now() + 900_000,
      subject: { id: 'chem', name: 'Organic chemistry' },
      task: { id: 't7', title: 'Chapter 7 problem set' },
      attempts: { correct: 4, incorrect: 1, skipped: 0 },
      target: 30,
    }),
  });
  expect(posted.status).toBe(200);
  return { code, channel, events: stream };
}

function phone(on: TestGateway, remoteAddress: string, code?: string, action?: unknown) {
  const headers = code === undefined ? {} : { 'x-pip-code': code };
  return action === undefined
    ? on.app.inject({ url: '/api/pip/state', remoteAddress, headers })
    : on.app.inject({ method: 'POST', url: '/api/pip/action', remoteAddress, headers, payload: action as object });
}

/** The index-th code in a fixed order that skips `except`. */
function guess(index: number, except: string): string {
  let value = index;
  let code = '';
  for (let position = 0; position < PAIRING_CODE_LENGTH; position++) {
    code += PAIRING_CODE_ALPHABET[value % PAIRING_CODE_ALPHABET.length];
    value = Math.floor(value / PAIRING_CODE_ALPHABET.length);
  }
  return code === except ? guess(index + 1_000_000, except) : code;
}

function expectNothingPrivate(body: string): void {
  for (const word of PRIVATE_WORDS) expect(body).not.toContain(word);
  expect(body).not.toMatch(/"attempts"|"remainingMs"|"phase"/);
}

describe('attack: the timer relay from another address on the LAN, with the default settings', () => {
  it('answers no subject, task, counts or phase without the code, and an action without it reaches no page', async () => {
    const { gateway: on, url } = await startWithDefaults();
    const page = await openFocusPage(url);

    for (const code of [undefined, 'AAAAAA', 'not a code']) {
      const state = await phone(on, ATTACKER, code);
      expect(state.statusCode).toBe(401);
      expect(state.json().error).toBe(code === undefined ? 'pairing_required' : 'pairing_code_invalid');
      expectNothingPrivate(state.body);
      const action = await phone(on, ATTACKER, code, { action: 'correct' });
      expect(action.statusCode).toBe(401);
    }
    // The shared channel of the open protocol is not in use either.
    expect((await on.relay.shared.latestSnapshot()).updatedAt).toBeNull();

    // The student's own phone, with the code, gets the timer and drives it; the page's first
    // action is that one: none of the refused ones reached it.
    const own = await phone(on, STUDENT_PHONE, page.code);
    expect(own.json()).toMatchObject({ subject: { name: 'Organic chemistry' }, attempts: { correct: 4 } });
    const sent = (await phone(on, STUDENT_PHONE, page.code, { action: 'skip' })).json();
    expect((await page.events.next('pip-action')).data).toMatchObject({ id: sent.id, action: 'skip' });
    expect(page.events.events.filter((event) => event.event === 'pip-action')).toEqual([]);
  });

  it('refuses 1,000 guessed codes from one address long before any could succeed, the right one included', async () => {
    const { gateway: on, url } = await startWithDefaults();
    const page = await openFocusPage(url);
    const statuses = new Map<number, number>();
    let rightGuess: Awaited<ReturnType<typeof phone>> | undefined;
    for (let index = 0; index < 1000; index++) {
      // The attacker is lucky: guess 500 is the right code.
      const code = index === 500 ? page.code : guess(index, page.code);
      const response = await phone(on, ATTACKER, code);
      statuses.set(response.statusCode, (statuses.get(response.statusCode) ?? 0) + 1);
      if (index === 500) rightGuess = response;
    }
    expect(statuses.get(401)).toBe(20);
    expect(statuses.get(429)).toBe(980);
    expect(rightGuess?.statusCode).toBe(429);
    expect(rightGuess?.json()).toMatchObject({ error: 'rate_limited', scope: 'address' });
    expectNothingPrivate(rightGuess?.body ?? '');
    // Other addresses of the same IPv6 /64 are the same guesser.
    for (let host = 1; host <= 30; host++) {
      const response = await phone(on, `2001:db8:5:7::${host.toString(16)}`, guess(5_000 + host, page.code));
      expect(response.statusCode).toBe(host <= 20 ? 401 : 429);
    }
    // The student's phone, on another address, is not locked out by it.
    expect((await phone(on, STUDENT_PHONE, page.code)).statusCode).toBe(200);
  });

  it('shares one budget of wrong codes among all addresses: spread-out guesses stop, paired phones keep working', async () => {
    const { gateway: on, url } = await startWithDefaults();
    const page = await openFocusPage(url);
    // The student's phone paired before the attack.
    expect((await phone(on, STUDENT_PHONE, page.code)).statusCode).toBe(200);

    // 60 addresses, 2 wrong codes each: every address stays well under its own limit.
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof phone>> | undefined;
    for (let host = 0; host < 60; host++) {
      for (let attempt = 0; attempt < 2; attempt++) {
        last = await phone(on, `10.0.${host}.9`, guess(host * 2 + attempt, page.code));
        statuses.push(last.statusCode);
      }
    }
    expect(statuses.filter((status) => status === 401)).toHaveLength(100);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(last?.json()).toMatchObject({ error: 'rate_limited', scope: 'server' });
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0);

    // The right code from an address that never used it is refused, unread: a lucky guess gains nothing.
    const lucky = await phone(on, '10.0.200.9', page.code);
    expect(lucky.statusCode).toBe(429);
    expectNothingPrivate(lucky.body);
    expect((await phone(on, '10.0.200.9', page.code, { action: 'correct' })).statusCode).toBe(429);
    // The phone that used the code before keeps reading and driving its timer.
    expect((await phone(on, STUDENT_PHONE, page.code)).json()).toMatchObject({ attempts: { correct: 4 } });
    expect((await phone(on, STUDENT_PHONE, page.code, { action: 'undo' })).statusCode).toBe(202);

    // When the window has passed, a new phone pairs again.
    clockMs += 10 * 60_000;
    expect((await phone(on, '10.0.200.9', page.code)).statusCode).toBe(200);
  });
});
