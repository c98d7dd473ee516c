// Benchmark: the start-alert worker's throughput. 1,000 alerts are queued in
// community_notification_outbox; a worker (the gateway's, talking to localbase's data API with the
// service key) claims, encrypts, signs and sends them to a loopback push service and marks them
// sent. Prints alerts per second from start to the last row marked sent, for several batch sizes
// and concurrencies side by side, on PGlite and on PostgreSQL 15. Not a test: it never fails on a time.
//   node --import tsx tools/bench/push-outbox.bench.ts [--alerts 1000] [--engine both|pglite|postgres] [--verify]
import { createECDH, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import webpush from 'web-push';
import { z } from 'zod';
import { BackendClient } from '#gateway/src/backend/backend-client.ts';
import { OutboxClient } from '#gateway/src/push/outbox-client.ts';
import { PushWorker, type PushWorkerSettings } from '#gateway/src/push/push-worker.ts';
import { VapidSigner } from '#gateway/src/push/web-push-sender.ts';
import { followStartAlerts, registerDeviceToken, signUpStudent } from '#gateway/test/push-fixtures.ts';
import { startPushReceiver, type PushReceiver } from '#gateway/test/push-receiver.ts';
import type { Localbase } from '#localbase';
import { startLocalbaseStack } from '../testing/localbase-stack.ts';

const options = z
  .object({
    alerts: z.coerce.number().int().min(10).max(100_000),
    engine: z.enum(['both', 'pglite', 'postgres']),
    verify: z.boolean(),
  })
  .parse(
    parseArgs({
      options: {
        alerts: { type: 'string', default: '1000' },
        engine: { type: 'string', default: 'both' },
        verify: { type: 'boolean', default: false },
      },
    }).values,
  );

interface Shape {
  name: string;
  settings: Partial<PushWorkerSettings>;
}

const SHAPES: Shape[] = [
  { name: 'defaults (batch 50, 16 at once)', settings: {} },
  { name: 'serial (batch 10, 1 at once)', settings: { batchSize: 10, concurrency: 1 } },
  { name: 'wide (batch 200, 32 at once)', settings: { batchSize: 200, concurrency: 32 } },
];

const vapidPair = webpush.generateVAPIDKeys();
const vapid = { ...vapidPair, subject: 'mailto:bench@example.com' };

interface Run {
  engine: string;
  shape: string;
  seconds: number;
  alertsPerSecond: number;
  firstPushMs: number;
}

async function queueAlerts(
  localbase: Localbase,
  recipient: string,
  actor: string,
  token: string,
  count: number,
): Promise<void> {
  await localbase.database.pool.query('delete from public.community_notification_outbox');
  await localbase.database.pool.query(
    `insert into public.community_notification_outbox (recipient_id, token, payload)
       select $1, $3, jsonb_build_object('type', 'start_alert', 'actor', jsonb_build_object('id', $2::uuid, 'handle', 'ada'),
                                         'target_type', 'buddy', 'target_id', $2::uuid, 'started_at', now() + make_interval(secs => g))
       from generate_series(1, $4::int) g`,
    [recipient, actor, token, count],
  );
}

async function deliveredCount(localbase: Localbase): Promise<number> {
  const { rows } = await localbase.database.pool.query<{ count: number }>(
    'select count(*)::int as count from public.community_notification_outbox where delivered_at is not null',
  );
  return rows[0]?.count ?? 0;
}

async function measure(
  engine: string,
  localbase: Localbase,
  receiver: PushReceiver,
  shape: Shape,
  setup: { recipient: string; actor: string; token: string },
): Promise<Run> {
  await queueAlerts(localbase, setup.recipient, setup.actor, setup.token, options.alerts);
  const receivedBefore = receiver.received.length;
  const outbox = new OutboxClient(
    new BackendClient({ url: localbase.url, anonKey: localbase.anonKey, serviceRoleKey: localbase.serviceRoleKey }),
  );
  const quiet = {
    info: () => {},
    warn: (object: object, message: string) => console.warn(message, object),
    error: (object: object, message: string) => console.error(message, object),
  };
  const worker = new PushWorker(outbox, vapid, quiet, { allowPlainHttp: true, pollIntervalMs: 20, ...shape.settings });
  const started = performance.now();
  worker.start();
  let firstPushMs = Number.NaN;
  for (;;) {
    if (Number.isNaN(firstPushMs) && receiver.received.length > receivedBefore)
      firstPushMs = performance.now() - started;
    if (worker.stats.sent >= options.alerts) break;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  const seconds = (performance.now() - started) / 1000;
  await worker.stop();
  const delivered = await deliveredCount(localbase);
  if (delivered !== options.alerts || receiver.received.length - receivedBefore !== options.alerts) {
    throw new Error(
      `expected ${options.alerts} alerts delivered once; rows marked sent ${delivered}, pushes received ${receiver.received.length - receivedBefore}`,
    );
  }
  return { engine, shape: shape.name, seconds, alertsPerSecond: options.alerts / seconds, firstPushMs };
}

async function benchEngine(engine: 'pglite' | 'postgres'): Promise<Run[]> {
  process.env.STUDYHALL_TEST_ENGINE = engine;
  const localbase = await startLocalbaseStack();
  const receiver = await startPushReceiver({ expectedVapidKey: vapid.publicKey, verify: options.verify });
  try {
    const ada = await signUpStudent(localbase.url, localbase.anonKey, 'ada');
    const bo = await signUpStudent(localbase.url, localbase.anonKey, 'bo_b');
    await followStartAlerts(bo, ada);
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    const setup = { recipient: bo.id, actor: ada.id, token: device.token };
    // One untimed round warms the JIT, the connection pool and the catalog caches.
    await measure(engine, localbase, receiver, SHAPES[0]!, setup);
    const runs: Run[] = [];
    for (const shape of SHAPES) runs.push(await measure(engine, localbase, receiver, shape, setup));
    return runs;
  } finally {
    await receiver.close();
    await localbase.close();
  }
}

/** Building one push's request: web-push signing VAPID for each push, against the cached signer. */
function perPushCost(): { signedEachMs: number; cachedMs: number } {
  const browser = createECDH('prime256v1');
  browser.generateKeys();
  const subscription = {
    endpoint: 'https://push.example.org/send/1',
    keys: { p256dh: browser.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
  const body = JSON.stringify({
    type: 'start_alert',
    actor: { id: '00000000-0000-4000-8000-000000000000', handle: 'ada' },
  });
  const signer = new VapidSigner(vapid);
  const time = (build: () => void): number => {
    for (let round = 0; round < 20; round += 1) build();
    const started = performance.now();
    for (let round = 0; round < 300; round += 1) build();
    return (performance.now() - started) / 300;
  };
  const signedEachMs = time(() =>
    webpush.generateRequestDetails(subscription, body, {
      vapidDetails: vapid,
      TTL: 3600,
      contentEncoding: 'aes128gcm',
    }),
  );
  const cachedMs = time(() => {
    const details = webpush.generateRequestDetails(subscription, body, { TTL: 3600, contentEncoding: 'aes128gcm' });
    signer.authorization(details.endpoint);
  });
  return { signedEachMs, cachedMs };
}

const cost = perPushCost();
const engines: ('pglite' | 'postgres')[] = options.engine === 'both' ? ['pglite', 'postgres'] : [options.engine];
const runs: Run[] = [];
for (const engine of engines) runs.push(...(await benchEngine(engine)));

console.log(
  `\nStart-alert worker: ${options.alerts} queued alerts to a loopback push service${options.verify ? ' (which verifies and decrypts each)' : ''}\n`,
);
console.log('| Database | Worker shape | seconds | alerts/s | first push ms | vs defaults |');
console.log('|---|---|---|---|---|---|');
for (const run of runs) {
  const baseline = runs.find((other) => other.engine === run.engine && other.shape === SHAPES[0]!.name)!;
  console.log(
    `| ${run.engine} | ${run.shape} | ${run.seconds.toFixed(2)} | ${run.alertsPerSecond.toFixed(0)} | ${run.firstPushMs.toFixed(0)} | ${(run.alertsPerSecond / baseline.alertsPerSecond).toFixed(2)}x |`,
  );
}
console.log(
  `\nBuilding one push request (encrypt + VAPID), 300 times: web-push signing each ${cost.signedEachMs.toFixed(2)} ms, ` +
    `signed once per push service ${cost.cachedMs.toFixed(2)} ms (${(cost.signedEachMs / cost.cachedMs).toFixed(2)}x faster)`,
);
