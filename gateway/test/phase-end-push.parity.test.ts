// The phase-end push on a real stack: Ada's focus page posts its snapshot to the relay with her
// access token, the gateway schedules community_schedule_phase_end with that token, and when the
// phase ends the worker sends a push naming it to her device on a loopback push service. A pause
// cancels it, a post without a token or with a forged one moves nothing, and Bo's device hears none.
//
// The tests run at once (it.concurrent): most of their time is waiting for phase ends with the CPU
// idle. Each has an Ada and a device of its own (`adaWithDevice`): the gateway schedules a phase end
// per student, from her own signed posts only (pip/phase-end-push.ts), so another test's posts on
// the shared channel move nothing of hers, and each reads only her own device's pushes.
import { SignJWT } from 'jose';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import type { VapidKeys } from '../src/push/vapid-keys.ts';
import { startTestGateway, type TestGateway } from './helpers.ts';
import { registerDeviceToken, signUpStudent, type Student } from './push-fixtures.ts';
import { startPushReceiver, type PushReceiver, type ReceiverSubscription } from './push-receiver.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';

const generated = webpush.generateVAPIDKeys();
const vapid: VapidKeys = {
  publicKey: generated.publicKey,
  privateKey: generated.privateKey,
  subject: 'mailto:t@example.com',
};

const localbase = fileFixture(startLocalbaseStack);
let receiver: PushReceiver;
let gateway: TestGateway;
let backendUrl: string;
let bo: Student;
let boDevice: ReceiverSubscription;

async function tokenOf(student: Student): Promise<string> {
  const { data } = await student.client.auth.getSession();
  if (!data.session) throw new Error('no session');
  return data.session.access_token;
}

function snapshot(phase: 'focus' | 'break' | 'idle', completionAtMs: number | null) {
  return {
    phase,
    running: completionAtMs !== null,
    remainingMs: completionAtMs === null ? 60_000 : Math.max(0, completionAtMs - Date.now()),
    completionAtMs,
    subject: null,
    task: null,
    attempts: { correct: 0, incorrect: 0, skipped: 0 },
    target: null,
  };
}

async function post(body: unknown, token?: string): Promise<void> {
  const response = await gateway.app.inject({
    method: 'POST',
    url: '/__pip/state',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    payload: body as object,
  });
  if (response.statusCode !== 200)
    throw new Error(`POST /__pip/state answered ${response.statusCode}: ${response.body}`);
  await gateway.phaseEnds.settled();
}

/** A new Ada (`handle`) with a device of her own, whose pushes no other test's posts can move. */
async function adaWithDevice(handle: string): Promise<{ ada: Student; adaDevice: ReceiverSubscription }> {
  const ada = await signUpStudent(backendUrl, localbase.anonKey, handle);
  const adaDevice = receiver.subscribe();
  await registerDeviceToken(ada, adaDevice.token);
  return { ada, adaDevice };
}

const pushesTo = (device: ReceiverSubscription) =>
  receiver.received.filter((push) => push.subscriptionId === device.id);
/** A real clock: a push that must not come (yet) has no event to wait on. */
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  receiver = await startPushReceiver({ expectedVapidKey: vapid.publicKey });
  gateway = await startTestGateway({
    backend: { url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey },
    // The open relay (PIP_PAIRING=off): the push path is the same with pairing, proven in the alarm e2e.
    config: { vapid, pipPairing: false },
    push: { pollIntervalMs: 100, allowPlainHttp: true },
  });
  const url = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
  backendUrl = `${url}/__backend`;
  bo = await signUpStudent(backendUrl, localbase.anonKey, 'bo_p');
  boDevice = receiver.subscribe();
  await registerDeviceToken(bo, boDevice.token);
  await gateway.push.start();
}, 120_000);

afterAll(async () => {
  await gateway?.close();
  await receiver?.close();
});

describe('phase-end push', () => {
  it.concurrent(
    'reaches her device within a second of the phase end, naming the phase that ended',
    async ({ expect }) => {
      const { ada, adaDevice } = await adaWithDevice('ada_end');
      const endsAt = Date.now() + 1500;
      await post(snapshot('focus', endsAt), await tokenOf(ada));
      await wait(1000); // nothing before the phase ends
      expect(pushesTo(adaDevice)).toEqual([]);
      const [push] = await receiver.waitForReceived(1, 5000, adaDevice.id);
      expect(push!.receivedAt - endsAt).toBeLessThan(1000);
      expect(push!.receivedAt).toBeGreaterThanOrEqual(endsAt);
      expect(push).toMatchObject({ topic: 'phase-end', ttl: 600 });
      expect(push!.payload).toEqual({
        type: 'phase_end',
        phase: 'focus',
        ends_at: new Date(endsAt).toISOString(),
        url: '/focus',
      });
      expect(pushesTo(boDevice)).toEqual([]);
    },
  );

  it.concurrent(
    'cancels the push when a pause clears completionAtMs, and reschedules on resume',
    async ({ expect }) => {
      const { ada, adaDevice } = await adaWithDevice('ada_pause');
      const token = await tokenOf(ada);
      const before = pushesTo(adaDevice).length;
      await post(snapshot('break', Date.now() + 1200), token);
      await post(snapshot('break', null), token);
      await wait(2500); // past the cancelled end (1.2 s), by more than a push takes to arrive
      expect(pushesTo(adaDevice)).toHaveLength(before);
      const endsAt = Date.now() + 800;
      await post(snapshot('break', endsAt), token);
      const pushes = await receiver.waitForReceived(before + 1, 5000, adaDevice.id);
      expect(pushes.at(-1)!.payload).toMatchObject({ phase: 'break', ends_at: new Date(endsAt).toISOString() });
    },
  );

  it.concurrent('moves nothing for a post without a token or with a forged one', async ({ expect }) => {
    const { ada, adaDevice } = await adaWithDevice('ada_forged');
    const token = await tokenOf(ada);
    const before = pushesTo(adaDevice).length;
    await post(snapshot('focus', Date.now() + 1500), token);
    // Someone else on the network pauses the shared channel, then claims to be Ada with a forged token.
    await post(snapshot('focus', null));
    const forged = await new SignJWT({ role: 'authenticated' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(ada.id)
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not-the-server-secret-not-the-server-secret'));
    await post(snapshot('focus', null), forged);
    const pushes = await receiver.waitForReceived(before + 1, 5000, adaDevice.id);
    expect(pushes.at(-1)!.payload).toMatchObject({ phase: 'focus' });
    expect(pushesTo(boDevice)).toEqual([]);
  });
});
