// A pairing the real gateway hands out is one the focus page reads and the phone accepts as typed,
// and the headers and token rule the gateway checks are the contract's.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipClient, type FetchLike } from '#companion/core/pip-client.ts';
import { normalizePairingCode as phoneReads } from '#companion/core/pairing-code.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { readPairAnswer } from '#web/src/lib/pairing.ts';
import {
  CHANNEL_TOKEN_PATTERN,
  isPairingCode,
  normalizePairingCode,
  PIP_CHANNEL_HEADER,
} from '#contracts/pip-pairing.ts';

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  gateway = await startTestGateway({ config: { pipPairing: true } });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

const browserFetch: FetchLike = (url, init) => fetch(url, init);

describe('the pairing contract', () => {
  it('is what the gateway hands out: the page reads it, the phone takes the code as typed, the headers work', async () => {
    const response = await fetch(`${baseUrl}/__pip/pair`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    const body = (await response.json()) as { code: string; channel: string };
    expect(response.status).toBe(201);
    expect(isPairingCode(body.code)).toBe(true);
    expect(body.channel).toMatch(CHANNEL_TOKEN_PATTERN);
    expect(readPairAnswer(response.status, body)).toMatchObject({
      kind: 'on',
      code: body.code,
      channel: body.channel,
      reused: false,
    });

    const typed = `${body.code.slice(0, 3).toLowerCase()}-${body.code.slice(3)}`;
    expect(phoneReads(typed)).toBe(body.code);
    const posted = await fetch(`${baseUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [PIP_CHANNEL_HEADER]: body.channel },
      body: JSON.stringify({
        phase: 'idle',
        running: false,
        remainingMs: 0,
        completionAtMs: null,
        subject: null,
        task: null,
        attempts: { correct: 0, incorrect: 0, skipped: 0 },
        target: null,
      }),
    });
    expect(posted.status).toBe(200);
    const phone = await createPipClient({
      serverUrl: baseUrl,
      pairingCode: phoneReads(typed)!,
      fetch: browserFetch,
    }).getState();
    expect(phone.kind).toBe('snapshot');
  });

  it('refuses the same codes and tokens on both sides', async () => {
    for (const bad of ['K7M2Q', 'K7M2QDX', 'K7M2Q0', 'K7M2QI', ''])
      expect(normalizePairingCode(bad), bad).toBeUndefined();
    const wrongCode = await createPipClient({
      serverUrl: baseUrl,
      pairingCode: 'AAAAAA',
      fetch: browserFetch,
    }).getState();
    expect(wrongCode).toMatchObject({ kind: 'pairing', reason: 'pairing_code_invalid' });
    for (const token of ['short', 'x'.repeat(65), 'has spaces in it, sixteen+']) {
      expect(CHANNEL_TOKEN_PATTERN.test(token), token).toBe(false);
      const answer = await fetch(`${baseUrl}/__pip/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ channel: token }),
      });
      expect(answer.status, token).toBe(400);
    }
  });
});
