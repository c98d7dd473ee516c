// SIGTERM while the worker is sending: `npm start` (gateway/src/main.ts) fronting a backend lets the
// pushes already on the wire finish and marks them sent, hands the rows it had not started back to
// the queue (no attempt counted, claimable at once) and exits 0.
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import webpush from 'web-push';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { startLocalbaseStack } from '#tools/testing/localbase-stack.ts';
import { makeTempDir } from './helpers.ts';
import {
  eventually,
  followStartAlerts,
  readOutbox,
  registerDeviceToken,
  serviceClient,
  signUpStudent,
} from './push-fixtures.ts';
import { startPushReceiver, type PushReceiver } from './push-receiver.ts';
import { fileFixture } from '#tools/testing/file-fixture.ts';
import { freePort } from '#tools/testing/free-port.ts';

const mainFile = path.join(repoRoot, 'gateway', 'src', 'main.ts');
const vapid = webpush.generateVAPIDKeys();

const localbase = fileFixture(startLocalbaseStack);
let receiver: PushReceiver;

beforeAll(async () => {
  receiver = await startPushReceiver({ expectedVapidKey: vapid.publicKey });
}, 120_000);

afterAll(async () => {
  await receiver?.close();
});

describe('SIGTERM while sending start alerts', () => {
  it('finishes the pushes on the wire, releases the rest and exits 0', async () => {
    const service = serviceClient(localbase.url, localbase.serviceRoleKey);
    const ada = await signUpStudent(localbase.url, localbase.anonKey, 'ada');
    const bo = await signUpStudent(localbase.url, localbase.anonKey, 'bo_b');
    await followStartAlerts(bo, ada);
    const device = receiver.subscribe();
    await registerDeviceToken(bo, device.token);
    // The worker sends 16 at a time (its default); each answer takes 2 s.
    const queued = 40;
    receiver.script(
      device.id,
      Array.from({ length: queued }, () => ({ status: 201, delayMs: 2000 })),
    );
    const rows = Array.from({ length: queued }, (_, index) => ({
      recipient_id: bo.id,
      token: device.token,
      payload: {
        type: 'start_alert',
        actor: { id: ada.id, handle: 'ada' },
        target_type: 'buddy',
        target_id: ada.id,
        started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, index)).toISOString(),
      },
    }));
    expect((await service.from('community_notification_outbox').insert(rows)).error).toBeNull();

    const temp = await makeTempDir('push-shutdown');
    // From the kernel: a random port could be one an outgoing connection already holds.
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', mainFile], {
      cwd: repoRoot,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/tmp',
        PORT: String(port),
        HOST: '127.0.0.1',
        BACKEND_URL: localbase.url,
        BACKEND_ANON_KEY: localbase.anonKey,
        BACKEND_SERVICE_ROLE_KEY: localbase.serviceRoleKey,
        VAPID_PUBLIC_KEY: vapid.publicKey,
        VAPID_PRIVATE_KEY: vapid.privateKey,
        VAPID_SUBJECT: 'mailto:push-tests@example.com',
        WEB_PUSH_ALLOW_HTTP: 'true',
        DATA_DIR: path.join(temp.dir, 'data'),
        LOG_DIR: path.join(temp.dir, 'logs'),
        LOG_LEVEL: 'info',
      },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      await eventually(
        async () => receiver.attempts.get(device.id) ?? 0,
        (count) => count >= 16,
        30_000,
        'pushes on the wire',
      );
      const signalledAt = Date.now();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // It waited for the answers (about 2 s), not for a lease or a timeout.
      expect(Date.now() - signalledAt).toBeLessThan(10_000);
      expect(receiver.attempts.get(device.id)).toBe(16);
      expect(receiver.received.filter((push) => push.subscriptionId === device.id)).toHaveLength(16);

      const settled = await readOutbox(service, device.token);
      const sent = settled.filter((row) => row.delivered_at !== null);
      const released = settled.filter((row) => row.delivered_at === null);
      expect(sent).toHaveLength(16);
      expect(released).toHaveLength(queued - 16);
      for (const row of released) {
        expect(row).toMatchObject({ attempts: 0, claim_id: null, failed_at: null });
        expect(Date.parse(row.next_attempt_at)).toBeLessThanOrEqual(Date.now());
      }
      // The terminal shows only warnings and errors; the full log is LOG_DIR/server.log.
      const serverLog = await readFile(path.join(temp.dir, 'logs', 'server.log'), 'utf8');
      expect(serverLog).toContain('push: delivering start alerts');
      expect(serverLog).not.toMatch(/"level":(50|60)/);
      expect(output).not.toMatch(/\b(ERROR|FATAL)\b/);
    } finally {
      child.kill('SIGKILL');
      await temp.remove();
    }
  }, 90_000);
});
