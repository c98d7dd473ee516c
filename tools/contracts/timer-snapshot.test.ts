// The timer snapshot as the real gateway serves it is exactly the contract's shape (nothing a
// reader would drop, nothing missing), the companion's client reads it unchanged, and what the
// gateway refuses from a page the contract refuses too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPipClient, type FetchLike } from '#companion/core/pip-client.ts';
import { startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';
import {
  idleSnapshot,
  snapshotStored,
  timerSnapshot,
  timerSnapshotInput,
  type PostedTimerSnapshot,
} from '#contracts/timer-snapshot.ts';

let gateway: TestGateway;
let baseUrl: string;

beforeAll(async () => {
  // The open relay (PIP_PAIRING=off): the contract is the same behind a pairing code.
  gateway = await startTestGateway({ config: { pipPairing: false } });
  baseUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => gateway.close());

/** What the focus page posts (web/src/state/focus.ts types its snapshotOf with this type). */
const posted: PostedTimerSnapshot = {
  phase: 'focus',
  running: true,
  remainingMs: 1_180_000,
  completionAtMs: 1_900_000_000_000,
  subject: { id: 's1', name: 'Anatomy' },
  task: { id: 't1', title: 'Chapter 3' },
  attempts: { correct: 3, incorrect: 1, skipped: 0 },
  target: 20,
  complete: false,
};

const browserFetch: FetchLike = (url, init) => fetch(url, init);

async function served(): Promise<unknown> {
  return (await fetch(`${baseUrl}/api/pip/state`)).json();
}

describe('the timer snapshot contract', () => {
  it('is what the gateway serves before any post: the idle snapshot, key for key', async () => {
    const fresh = await startTestGateway({ config: { pipPairing: false } });
    try {
      const body: unknown = (await fresh.app.inject({ url: '/api/pip/state' })).json();
      expect(body).toEqual(idleSnapshot);
      expect(timerSnapshot.parse(body)).toEqual(body);
    } finally {
      await fresh.close();
    }
  });

  it('is what the gateway serves after a post, and the companion reads it unchanged', async () => {
    const answer = await fetch(`${baseUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(posted),
    });
    expect(answer.status).toBe(200);
    const stored: unknown = await answer.json();
    expect(snapshotStored.parse(stored)).toEqual(stored);

    const body = await served();
    expect(timerSnapshot.parse(body)).toEqual(body); // a key the contract does not know would be dropped here
    expect(body).toEqual({ ...posted, updatedAt: (stored as { updatedAt: number }).updatedAt });

    const companion = await createPipClient({ serverUrl: baseUrl, pairingCode: null, fetch: browserFetch }).getState();
    expect(companion).toEqual({ kind: 'snapshot', snapshot: body });
  });

  it.each([
    ['an unknown key', { ...posted, secret: true }],
    ['an unknown key in subject', { ...posted, subject: { id: 's1', name: 'Anatomy', colour: 'red' } }],
    ['a fractional remaining time', { ...posted, remainingMs: 1.5 }],
    ['a subject name over 200 characters', { ...posted, subject: { id: 's1', name: 'x'.repeat(201) } }],
    ['a task title over 500 characters', { ...posted, task: { id: 't1', title: 'x'.repeat(501) } }],
    ['a target of 0', { ...posted, target: 0 }],
    ['a missing phase', { ...posted, phase: undefined }],
    ['a complete that is not a boolean', { ...posted, complete: 'yes' }],
  ])('is refused by both the contract and the gateway with %s', async (_name, body) => {
    expect(timerSnapshotInput.safeParse(body).success).toBe(false);
    const answer = await gateway.app.inject({ method: 'POST', url: '/__pip/state', payload: body });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error).toBe('invalid_request');
  });

  it('takes a snapshot without `complete`, as a page older than the key posts it', async () => {
    const { complete: _complete, ...older } = posted;
    const answer = await gateway.app.inject({ method: 'POST', url: '/__pip/state', payload: older });
    expect(answer.statusCode).toBe(200);
  });

  it('lets a reader skip what a newer server adds, but not a wrong shape', () => {
    const newer = { ...posted, updatedAt: 1, mood: 'calm', subject: { id: 's1', name: 'Anatomy', colour: 'red' } };
    expect(timerSnapshot.parse(newer)).toEqual({ ...posted, updatedAt: 1 });
    expect(timerSnapshot.safeParse({ ...posted, updatedAt: 'yesterday' }).success).toBe(false);
    expect(timerSnapshot.safeParse({ ...posted }).success).toBe(false); // no updatedAt at all
  });
});
