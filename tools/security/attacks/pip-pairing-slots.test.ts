// attack: one address takes every timer-relay slot. POST /__pip/pair a thousand times (3 s) and
// keep an event stream open on each pairing: every slot then holds a page "with an open stream",
// and every other student's focus page gets 503 pairing_full; a flood of pairings alone pushed out
// other students' idle pairings (their phone's code stopped working); and 2,000 event streams from
// one address were all accepted. Now pairings and streams are limited per address, and an
// address over its limit gives up its own oldest pairing, or is told to wait (429).
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PAIRINGS_PER_ADDRESS } from '#gateway/src/pip/pip-pairing.ts';
import { MAX_EVENT_STREAMS_PER_ADDRESS, PipRelay } from '#gateway/src/pip/pip-relay.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';

/** A server small enough to fill in a test: the attack is the same at 1,000 slots. */
const SLOTS = 40;
const ATTACKER = '192.168.1.66';

let gateway: TestGateway | undefined;
const open: http.ClientRequest[] = [];

afterEach(async () => {
  for (const request of open.splice(0)) request.destroy();
  await gateway?.close();
  gateway = undefined;
});

async function start(pipPairing: boolean): Promise<{ gateway: TestGateway; url: string }> {
  gateway = await startTestGateway({
    config: { pipPairing },
    relay: new PipRelay(60_000, 256 * 1024, { maxPairings: SLOTS }),
  });
  return { gateway, url: await gateway.app.listen({ host: '127.0.0.1', port: 0 }) };
}

function pair(on: TestGateway, remoteAddress: string) {
  return on.app.inject({ method: 'POST', url: '/__pip/pair', remoteAddress, payload: {} });
}

/** Opens GET /__pip/events over a real connection from `localAddress`; resolves with the status once headers arrive. */
function openStream(
  url: string,
  localAddress = '127.0.0.1',
): Promise<{ status: number; retryAfter: string | undefined; close(): void }> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      url,
      { agent: false, localAddress, headers: { accept: 'text/event-stream' } },
      (response) => {
        response.resume();
        resolve({
          status: response.statusCode ?? 0,
          retryAfter: response.headers['retry-after'] as string | undefined,
          close: () => request.destroy(),
        });
      },
    );
    open.push(request);
    request.on('error', reject);
  });
}

describe('attack: filling the timer relay from one address', () => {
  it("a flood of pairings from one address pushes out only its own, never another student's pairing", async () => {
    const { gateway: on } = await start(true);
    const victim = (await pair(on, '192.168.1.20')).json();
    const statuses = new Map<number, number>();
    for (let index = 0; index < 1000; index++) {
      const status = (await pair(on, ATTACKER)).statusCode;
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    expect(statuses.get(201)).toBe(1000);
    expect((on.relay as PipRelay).pairings.heldBy(ATTACKER)).toBe(MAX_PAIRINGS_PER_ADDRESS);
    const phone = await on.app.inject({
      url: '/api/pip/state',
      remoteAddress: '192.168.1.21',
      headers: { 'x-pip-code': victim.code },
    });
    expect(phone.statusCode).toBe(200);
    expect((await pair(on, '192.168.1.22')).statusCode).toBe(201);
  });

  it("pairings kept alive by open streams fill at most the address's own share; others still pair", async () => {
    const { gateway: on, url } = await start(true);
    let streams = 0;
    let refusal: Awaited<ReturnType<typeof pair>> | undefined;
    for (let index = 0; index < SLOTS; index++) {
      const response = await pair(on, '127.0.0.1');
      if (response.statusCode !== 201) {
        refusal = response;
        break;
      }
      const stream = await openStream(`${url}/__pip/events?channel=${response.json().channel}`);
      if (stream.status === 200) streams++;
    }
    expect(streams).toBe(MAX_PAIRINGS_PER_ADDRESS);
    expect(refusal?.statusCode).toBe(429);
    expect(refusal?.json()).toMatchObject({ error: 'rate_limited', retry_after_s: 30 });
    expect(refusal?.headers['retry-after']).toBe('30');
    const other = await pair(on, '192.168.1.30');
    expect(other.statusCode, other.body).toBe(201);
  });

  it('accepts only a limited number of open event streams per address, and gives places back when streams close', async () => {
    const { url } = await start(false);
    const accepted: Awaited<ReturnType<typeof openStream>>[] = [];
    let refused: Awaited<ReturnType<typeof openStream>> | undefined;
    for (let index = 0; index < MAX_EVENT_STREAMS_PER_ADDRESS + 10; index++) {
      const stream = await openStream(`${url}/__pip/events`);
      if (stream.status === 200) accepted.push(stream);
      else {
        refused = stream;
        break;
      }
    }
    expect(accepted).toHaveLength(MAX_EVENT_STREAMS_PER_ADDRESS);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.retryAfter)).toBeGreaterThan(0);
    // Another address is not affected.
    expect((await openStream(`${url}/__pip/events`, '127.0.0.2')).status).toBe(200);
    // A closed stream gives its place back.
    accepted[0]?.close();
    await expect.poll(async () => (await openStream(`${url}/__pip/events`)).status, { timeout: 3000 }).toBe(200);
  });
});
