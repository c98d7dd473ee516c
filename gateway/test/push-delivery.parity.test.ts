// Start alerts delivered end to end on a real stack: students act through supabase-js via the
// gateway's /__backend, the database queues the alert, the gateway's worker sends it as Web Push
// to a loopback push service that checks the VAPID signature and decrypts the aes128gcm body.
// Runs on PGlite (npm test) and PostgreSQL 15 (npm run test:pg), where two gateways claiming at
// once really contend for rows.
//
// The tests of one device each run at once (it.concurrent): most of their time is windows in which
// nothing may arrive and the worker's backoff, with the CPU idle. Each has a student and a buddy of
// its own (`buddies`), so one test's start alerts reach only its own devices, and reads only its
// own device's pushes and outbox rows. The test of two gateways runs after them, alone: it stops
// the first gateway's worker.
import type { SupabaseClient } from '@supabase/supabase-js';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { PushWorkerSettings } from '../src/push/push-worker.ts';
import type { VapidKeys } from '../src/push/vapid-keys.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import {
  deviceTokens,
  eventually,
  followStartAlerts,
  readOutbox,
  registerDeviceToken,
  serviceClient,
  shareCurrentSubject,
  signUpStudent,
  startStudying,
  type Student,
} from './push-fixtures.ts';
import { startPushReceiver, type PushReceiver } from './push-receiver.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const generated = webpush.generateVAPIDKeys();
const vapid: VapidKeys = {
  publicKey: generated.publicKey,
  privateKey: generated.privateKey,
  subject: 'mailto:push-tests@example.com',
};
// Short polls and backoff so retries show within seconds; plain HTTP for the loopback receiver.
const fastPush: Partial<PushWorkerSettings> = {
  pollIntervalMs: 100,
  retryBaseSeconds: 1,
  retryMaxSeconds: 2,
  allowPlainHttp: true,
};

const localbase = fileFixture(startLocalbaseStack);
let receiver: PushReceiver;
const gateways: TestGateway[] = [];
let backendUrl: string;
let service: SupabaseClient;

async function startGateway(push: Partial<PushWorkerSettings> = fastPush): Promise<TestGateway> {
  const gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    config: { vapid },
    push,
    // Every test signs up students of its own from this address (`buddies`): more than the 10
    // credential attempts a minute one address may make.
    rateLimits: { credentials: { max: 1_000, windowMs: 60_000 } },
  });
  gateways.push(gateway);
  return gateway;
}

/**
 * Ada, and Bo, her buddy, who asked for her start alerts: new for each test (`name` tells them
 * apart), so that no other test's Ada reaches this Bo's devices.
 */
async function buddies(name: string): Promise<{ ada: Student; bo: Student }> {
  const ada = await signUpStudent(backendUrl, localbase.anonKey, `ada_${name}`);
  const bo = await signUpStudent(backendUrl, localbase.anonKey, `bo_${name}`);
  await followStartAlerts(bo, ada);
  await shareCurrentSubject(ada);
  return { ada, bo };
}

/** The token's outbox row once the worker has given it up (failed_at set). */
function givenUp(token: string) {
  return eventually(
    () => readOutbox(service, token),
    (found) => found[0]?.failed_at != null,
    5000,
    'row given up',
  );
}

/**
 * No new push for a while: what "nothing is sent" can mean for an asynchronous sender. A real
 * clock: a push that must not come has no event to wait on.
 */
async function settle(ms = 1500): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, ms));
}

beforeAll(async () => {
  receiver = await startPushReceiver({ expectedVapidKey: vapid.publicKey });
  const gateway = await startGateway();
  const gatewayUrl = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  backendUrl = `${gatewayUrl}/__backend`;
  service = serviceClient(localbase.url, localbase.serviceRoleKey);
  await gateway.push.start();
}, 120_000);

afterAll(async () => {
  for (const gateway of gateways) await gateway.close();
  await receiver?.close();
});

describe('start alert delivery', () => {
  it.concurrent('serves the VAPID public key browsers subscribe with', async ({ expect }) => {
    const response = await gateways[0]!.app.inject({ method: 'GET', url: '/api/push/vapid-public-key' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ public_key: vapid.publicKey });
  });

  it.concurrent('sends one decrypted push naming Ada to Bo within 5 s of Ada starting to study', async ({ expect }) => {
    const { ada, bo } = await buddies('first');
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    const startedAt = Date.now();
    await startStudying(ada, 'Anatomy');
    const [push] = await receiver.waitForReceived(1, 5000, device.id);
    expect(push!.receivedAt - startedAt).toBeLessThan(5000);
    expect(push).toMatchObject({ subscriptionId: device.id, ttl: 3600, topic: ada.id.replace(/-/g, '') });
    expect(push!.payload).toEqual({
      type: 'start_alert',
      actor: { id: ada.id, handle: ada.handle },
      target_type: 'buddy',
      target_id: ada.id,
      started_at: expect.any(String),
      subject: 'Anatomy',
      url: '/buddies',
    });
    // Exactly one: nothing more arrives, and the row is settled as sent.
    await settle();
    expect(receiver.received.filter((item) => item.subscriptionId === device.id)).toHaveLength(1);
    const rows = await eventually(
      () => readOutbox(service, device.token),
      (found) => found[0]?.delivered_at != null,
      3000,
      'row marked sent',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ attempts: 1, failed_at: null, claim_id: null });
    expect(receiver.rejected).toEqual([]);
  });

  it.concurrent("sends nothing inside Bo's quiet hours", async ({ expect }) => {
    const { ada, bo } = await buddies('quiet');
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    const now = new Date();
    const hhmm = (date: Date) =>
      `${String(date.getUTCHours()).padStart(2, '0')}:${String(date.getUTCMinutes()).padStart(2, '0')}`;
    const { error } = await bo.client.rpc('community_sync_quiet_hours', {
      p_quiet_start: hhmm(new Date(now.getTime() - 3600_000)),
      p_quiet_end: hhmm(new Date(now.getTime() + 3600_000)),
      p_timezone_offset_minutes: 0,
    });
    expect(error).toBeNull();
    try {
      await startStudying(ada);
      await settle(2000);
      expect(receiver.attempts.get(device.id)).toBeUndefined();
      expect(await readOutbox(service, device.token)).toEqual([]);
    } finally {
      await bo.client.rpc('community_sync_quiet_hours', {
        p_quiet_start: null,
        p_quiet_end: null,
        p_timezone_offset_minutes: 0,
      });
    }
  });

  it.concurrent('removes the device token when the push service answers 410 Gone', async ({ expect }) => {
    const { ada, bo } = await buddies('gone');
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    receiver.script(device.id, [{ status: 410 }]);
    await startStudying(ada);
    const [row] = await givenUp(device.token);
    expect(row!.last_error).toMatch(/^push service answered 410/);
    expect(await deviceTokens(bo)).not.toContain(device.token);
    expect(receiver.attempts.get(device.id)).toBe(1);
    // No alert is queued for the removed token afterwards.
    await startStudying(ada);
    await settle();
    expect(receiver.attempts.get(device.id)).toBe(1);
    expect(await readOutbox(service, device.token)).toHaveLength(1);
  });

  it.concurrent('retries a 500 answer with backoff and then delivers once', async ({ expect }) => {
    const { ada, bo } = await buddies('retry');
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    receiver.script(device.id, [{ status: 500 }, { status: 503, headers: { 'retry-after': '1' } }]);
    await startStudying(ada);
    await receiver.waitForReceived(1, 15_000, device.id);
    const [row] = await eventually(
      () => readOutbox(service, device.token),
      (found) => found[0]?.delivered_at != null,
      3000,
      'row marked sent',
    );
    expect(row).toMatchObject({ attempts: 3, failed_at: null });
    expect(receiver.attempts.get(device.id)).toBe(3);
    expect(receiver.received.filter((item) => item.subscriptionId === device.id)).toHaveLength(1);
  });

  it.concurrent('removes a subscription the browser said has expired, without sending to it', async ({ expect }) => {
    const { ada, bo } = await buddies('expired');
    const device = receiver.subscribe();
    const expired = JSON.stringify({ ...JSON.parse(device.token), expirationTime: Date.now() - 60_000 });
    await registerDeviceToken(bo, expired);
    await startStudying(ada);
    const [row] = await givenUp(expired);
    expect(row!.last_error).toMatch(/^subscription_expired: /);
    expect(await deviceTokens(bo)).not.toContain(expired);
    expect(receiver.attempts.get(device.id)).toBeUndefined();
  });

  it.concurrent(
    'gives up a token that is not a Web Push subscription at once, without retrying',
    async ({ expect }) => {
      const { ada, bo } = await buddies('invalid');
      const token = `not-a-subscription-${Date.now()}`;
      await registerDeviceToken(bo, token);
      await startStudying(ada);
      const [row] = await givenUp(token);
      expect(row!.last_error).toMatch(/^invalid_subscription: /);
      expect(row!.attempts).toBe(1);
      // A plain-HTTP endpoint off loopback is refused the same way, before any request.
      const offLoopback = JSON.stringify({
        ...JSON.parse(receiver.subscribe().token),
        endpoint: 'http://10.255.255.1/push/1',
      });
      await registerDeviceToken(bo, offLoopback);
      await startStudying(ada);
      const [refused] = await givenUp(offLoopback);
      expect(refused!.last_error).toBe('invalid_subscription: endpoint: must be an https URL');
    },
  );

  it('never sends a row twice when two gateways deliver from one database', async () => {
    // A fresh subscriber with one device, and 120 queued alerts told apart by started_at.
    const device = receiver.subscribe();
    const ada = await signUpStudent(backendUrl, localbase.anonKey, 'ada_twice');
    const cy = await signUpStudent(backendUrl, localbase.anonKey, 'cy_c');
    await followStartAlerts(cy, ada);
    await registerDeviceToken(cy, device.token);
    // Only the two gateways below deliver from here on.
    await gateways[0]!.push.stop();
    // Both claim small batches often; the receiver's slow answers keep batches in flight.
    const shared: Partial<PushWorkerSettings> = { ...fastPush, pollIntervalMs: 20, batchSize: 5, concurrency: 2 };
    const first = await startGateway(shared);
    const second = await startGateway(shared);
    await Promise.all([first.push.start(), second.push.start()]);
    receiver.script(
      device.id,
      Array.from({ length: 120 }, () => ({ status: 201, delayMs: 10 })),
    );
    const total = 120;
    const rows = Array.from({ length: total }, (_, index) => ({
      recipient_id: cy.id,
      token: device.token,
      payload: {
        type: 'start_alert',
        actor: { id: ada.id, handle: 'ada' },
        target_type: 'buddy',
        target_id: ada.id,
        started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
      },
    }));
    const { error } = await service.from('community_notification_outbox').insert(rows);
    expect(error).toBeNull();
    const fromCy = () => receiver.received.filter((item) => item.subscriptionId === device.id);
    await eventually(
      async () => fromCy().length,
      (count) => count >= total,
      30_000,
      'all rows delivered',
    );
    await settle(1000);
    const startedAts = fromCy().map((item) => (item.payload as { started_at: string }).started_at);
    expect(startedAts).toHaveLength(total);
    expect(new Set(startedAts).size).toBe(total);
    const firstSent = first.push.activeWorker!.stats.sent;
    const secondSent = second.push.activeWorker!.stats.sent;
    expect(firstSent + secondSent).toBe(total);
    expect(firstSent).toBeGreaterThan(0);
    expect(secondSent).toBeGreaterThan(0);
    const settled = await readOutbox(service, device.token);
    expect(settled.filter((row) => row.delivered_at != null)).toHaveLength(total);
    expect(settled.every((row) => row.attempts === 1)).toBe(true);
  }, 60_000);
});
