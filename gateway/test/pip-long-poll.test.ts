// The phone's long poll on GET /api/pip/state?after=<updatedAt>: a phone naming the snapshot it
// shows is answered the moment the page posts a newer one (Start reaches it within a second, not at
// its next poll), or after LONG_POLL_MS with the same one; without `after`, or with one it cannot
// read, the route answers at once as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LONG_POLL_MS } from '../src/pip/pip-relay.ts';
import { PIP_WAIT_HEADER } from '../src/pip/pip-routes.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';

let gateway: TestGateway;

beforeAll(async () => {
  // The open relay (PIP_PAIRING=off); the paired routes hold requests the same way.
  gateway = await startTestGateway({ config: { pipPairing: false } });
});
afterAll(() => gateway.close());

const snapshot = (running: boolean) => ({
  phase: running ? 'focus' : 'idle',
  running,
  remainingMs: 1_500_000,
  completionAtMs: running ? Date.now() + 1_500_000 : null,
  subject: null,
  task: null,
  attempts: { correct: 0, incorrect: 0, skipped: 0 },
  target: null,
});

async function post(running: boolean): Promise<number> {
  const response = await gateway.app.inject({ method: 'POST', url: '/__pip/state', payload: snapshot(running) });
  return (response.json() as { updatedAt: number }).updatedAt;
}

describe('GET /api/pip/state?after=', () => {
  it('answers the moment the page posts a newer snapshot', async () => {
    const shown = await post(false);
    const asked = Date.now();
    const waiting = gateway.app.inject({ method: 'GET', url: `/api/pip/state?after=${shown}` });
    // A parked long poll sends nothing to wait on: give it time to park before the newer snapshot.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const started = await post(true);
    const answer = await waiting;
    expect(Date.now() - asked).toBeLessThan(1000);
    expect(answer.json()).toMatchObject({ phase: 'focus', running: true, updatedAt: started });
    expect(answer.headers[PIP_WAIT_HEADER]).toBe(String(LONG_POLL_MS));
    expect(answer.headers['access-control-expose-headers']).toContain(PIP_WAIT_HEADER);
  });

  it('answers the same snapshot after its wait when nothing changes', async () => {
    const shown = await post(false);
    const asked = Date.now();
    const answer = await gateway.app.inject({ method: 'GET', url: `/api/pip/state?after=${shown}` });
    expect(Date.now() - asked).toBeGreaterThanOrEqual(LONG_POLL_MS - 50);
    expect(answer.json()).toMatchObject({ updatedAt: shown });
  });

  it('answers at once when the phone is behind, without after, or with an after it cannot read', async () => {
    const latest = await post(true);
    for (const url of ['/api/pip/state?after=1', '/api/pip/state', '/api/pip/state?after=soon']) {
      const asked = Date.now();
      const answer = await gateway.app.inject({ method: 'GET', url });
      expect(Date.now() - asked).toBeLessThan(500);
      expect(answer.statusCode).toBe(200);
      expect(answer.json()).toMatchObject({ updatedAt: latest });
    }
  });
});
