// Every body the companion builds is one the real gateway takes, every one it refuses the gateway
// refuses too, and the gateway's answer is exactly the contract's shape, read by the companion.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionBody } from '#companion/core/actions.ts';
import { createPipClient, type FetchLike } from '#companion/core/pip-client.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import { actionAccepted, MAX_TARGET, PIP_ACTIONS, pipAction } from '#contracts/phone-actions.ts';

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  // The open relay (PIP_PAIRING=off): the contract is the same behind a pairing code.
  gateway = await startTestGateway({ config: { pipPairing: false } });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

const browserFetch: FetchLike = (url, init) => fetch(url, init);

async function post(body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${baseUrl}/api/pip/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('the phone action contract', () => {
  it.each(PIP_ACTIONS.map((action) => [action]))(
    '%s: the companion’s body is taken and the answer is the contract’s shape',
    async (action) => {
      const built = actionBody(action, action === 'target' ? MAX_TARGET : undefined);
      if (!built.ok) throw new Error(built.message);
      const { status, json } = await post(built.body);
      expect(status).toBe(202);
      expect(actionAccepted.parse(json)).toEqual(json);
    },
  );

  it('is what the companion’s client reads from the real answer', async () => {
    const client = createPipClient({ serverUrl: baseUrl, pairingCode: null, fetch: browserFetch });
    const answer = await client.sendAction({ action: 'undo' });
    expect(answer).toMatchObject({ kind: 'accepted', delivered: 0 });
    expect(answer.kind === 'accepted' && answer.id).toBeGreaterThan(0);
  });

  it.each([[0], [-1], [2.5], [MAX_TARGET + 1], [Number.NaN]])(
    'refuses a target of %s on the phone and on the gateway',
    async (target) => {
      expect(actionBody('target', target).ok).toBe(false);
      expect(pipAction.safeParse({ action: 'target', target }).success).toBe(false);
      const { status, json } = await post({ action: 'target', target });
      expect(status).toBe(400);
      expect(json).toMatchObject({ error: 'invalid_request' });
    },
  );

  it.each([
    ['an unknown action', { action: 'explode' }],
    ['a target on a count', { action: 'skip', target: 3 }],
    ['a target without its number', { action: 'target' }],
    ['a target on start', { action: 'start', target: 3 }],
    ['a stop, which is not an action', { action: 'stop' }],
  ])('refuses %s on both sides', async (_name, body) => {
    expect(pipAction.safeParse(body).success).toBe(false);
    expect((await post(body)).status).toBe(400);
  });
});
