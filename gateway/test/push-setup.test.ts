// How a gateway comes by its Web Push identity and whether it delivers: VAPID_* validated all or
// none, keys generated once per DATA_DIR (0600) and reused, a hosted backend without VAPID_* or a
// gateway without the service key says why once; device tokens that are not usable subscriptions.
import { readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import webpush from 'web-push';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { PushService } from '../src/push/push-service.ts';
import { parsePushToken } from '../src/push/push-subscription.ts';
import { OutboxClient } from '../src/push/outbox-client.ts';
import { PushWorker, type PushLog } from '../src/push/push-worker.ts';
import { BackendClient } from '../src/backend/backend-client.ts';
import { defaultVapidSubject, loadOrCreateVapidKeys, vapidKeysFile } from '../src/push/vapid-keys.ts';
import { parseRetryAfter, VapidSigner } from '../src/push/web-push-sender.ts';
import { DEAD_BACKEND, makeTempDir, startTestGateway, testConfig, type TestGateway } from './helpers.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function capturingLog(): PushLog & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const record = (level: string) => (_object: object, message: string) => void lines.push({ level, message });
  return { lines, info: record('info'), warn: record('warn'), error: record('error') };
}

async function gateway(options: Parameters<typeof startTestGateway>[0]): Promise<TestGateway> {
  const started = await startTestGateway(options);
  cleanups.push(() => started.close());
  return started;
}

describe('VAPID settings', () => {
  const keys = webpush.generateVAPIDKeys();

  it('reads a complete, matching VAPID_* triple', () => {
    const result = loadConfig({
      VAPID_PUBLIC_KEY: keys.publicKey,
      VAPID_PRIVATE_KEY: keys.privateKey,
      VAPID_SUBJECT: 'mailto:owner@example.org',
    });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.vapid).toEqual({
      publicKey: keys.publicKey,
      privateKey: keys.privateKey,
      subject: 'mailto:owner@example.org',
    });
    expect(result.config.pushAllowPlainHttp).toBe(false);
  });

  it('leaves vapid unset when none of the three is set', () => {
    const result = loadConfig({});
    expect(result.ok && result.config.vapid).toBe(undefined);
  });

  it('refuses some of the three without the others, naming the missing ones', () => {
    const result = loadConfig({ VAPID_PUBLIC_KEY: keys.publicKey });
    expect(result).toEqual({
      ok: false,
      problems: ['VAPID_PRIVATE_KEY, VAPID_SUBJECT: set all three VAPID variables or none'],
    });
  });

  it('refuses malformed keys, a private key of another pair and subjects push services reject', () => {
    const other = webpush.generateVAPIDKeys();
    expect(
      loadConfig({
        VAPID_PUBLIC_KEY: 'abc',
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: 'mailto:a@example.org',
      }),
    ).toEqual({
      ok: false,
      problems: ['VAPID_PUBLIC_KEY: must decode to 65 bytes (an uncompressed P-256 public key)'],
    });
    expect(
      loadConfig({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: other.privateKey,
        VAPID_SUBJECT: 'mailto:a@example.org',
      }),
    ).toEqual({
      ok: false,
      problems: ['VAPID_PRIVATE_KEY: is not the private key of VAPID_PUBLIC_KEY'],
    });
    for (const subject of [
      'mailto:owner@localhost',
      'https://push.invalid',
      'http://example.org',
      'owner@example.org',
    ]) {
      const result = loadConfig({
        VAPID_PUBLIC_KEY: keys.publicKey,
        VAPID_PRIVATE_KEY: keys.privateKey,
        VAPID_SUBJECT: subject,
      });
      expect(result.ok, subject).toBe(false);
      expect(!result.ok && result.problems[0]).toMatch(/^VAPID_SUBJECT: /);
    }
  });
});

describe('VAPID keys in DATA_DIR', () => {
  it('generates the pair once, only the owner may read it, and reuses it', async () => {
    const temp = await makeTempDir('vapid');
    cleanups.push(temp.remove);
    const first = await loadOrCreateVapidKeys(temp.dir, 'mailto:a@example.org');
    expect((await stat(vapidKeysFile(temp.dir))).mode & 0o777).toBe(0o600);
    const again = await loadOrCreateVapidKeys(temp.dir, 'mailto:b@example.org');
    expect(again).toEqual({ ...first, subject: 'mailto:b@example.org' });
    expect(Buffer.from(first.publicKey, 'base64url')).toHaveLength(65);
  });

  it('refuses a damaged key file rather than replacing the keys browsers subscribed with', async () => {
    const temp = await makeTempDir('vapid');
    cleanups.push(temp.remove);
    await writeFile(vapidKeysFile(temp.dir), '{"publicKey": "x"}');
    await expect(loadOrCreateVapidKeys(temp.dir, 'mailto:a@example.org')).rejects.toThrow(/is unreadable or invalid/);
    expect(await readFile(vapidKeysFile(temp.dir), 'utf8')).toBe('{"publicKey": "x"}');
  });

  it('signs with the first admin e-mail as contact, or a resolvable placeholder', () => {
    expect(defaultVapidSubject(['owner@school.org', 'b@school.org'])).toBe('mailto:owner@school.org');
    expect(defaultVapidSubject([])).toBe('mailto:studyhall@example.com');
  });
});

describe('GET /api/push/vapid-public-key', () => {
  it('serves the key generated in DATA_DIR with localbase, the same on every call', async () => {
    const started = await gateway({});
    const first = await started.app.inject({ method: 'GET', url: '/api/push/vapid-public-key' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-cache');
    const stored = JSON.parse(await readFile(vapidKeysFile(path.join(started.logDir, 'data')), 'utf8')) as {
      publicKey: string;
    };
    expect(first.json()).toEqual({ public_key: stored.publicKey });
    expect((await started.app.inject({ method: 'GET', url: '/api/push/vapid-public-key' })).json()).toEqual(
      first.json(),
    );
  });

  it('answers 503 for a hosted backend without VAPID_*', async () => {
    const started = await gateway({
      config: { backend: { url: 'https://project.example.org', anonKey: 'anon', serviceRoleKey: 'service' } },
    });
    const response = await started.app.inject({ method: 'GET', url: '/api/push/vapid-public-key' });
    expect(response.statusCode).toBe(503);
    expect(response.json()).toEqual({
      error: 'push_unavailable',
      message:
        'Web Push is not available on this server: a hosted backend needs VAPID_PUBLIC_KEY, VAPID_PRIVATE_KEY and VAPID_SUBJECT for Web Push.',
    });
  });
});

describe('whether the worker runs', () => {
  it('does not run without the service key, and says so once', async () => {
    const temp = await makeTempDir('push-service');
    cleanups.push(temp.remove);
    const log = capturingLog();
    const service = new PushService({
      config: testConfig(temp.dir),
      backend: { ...DEAD_BACKEND, serviceRoleKey: undefined },
      log,
    });
    await service.start();
    await service.start();
    expect(service.activeWorker).toBeUndefined();
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message:
          'push: start alerts are not delivered: the delivery needs the service key (set BACKEND_SERVICE_ROLE_KEY)',
      },
    ]);
    await service.stop();
  });

  it('does not run for a hosted backend without VAPID_*, and says so once', async () => {
    const temp = await makeTempDir('push-service');
    cleanups.push(temp.remove);
    const log = capturingLog();
    const config = testConfig(temp.dir, {
      backend: { url: 'https://project.example.org', anonKey: 'anon', serviceRoleKey: 'service' },
    });
    const service = new PushService({ config, backend: DEAD_BACKEND, log });
    await service.start();
    expect(service.activeWorker).toBeUndefined();
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]!.message).toMatch(
      /^push: start alerts are not delivered: a hosted backend needs VAPID_PUBLIC_KEY/,
    );
  });

  it('runs with localbase keys and the service key, and stops when asked', async () => {
    const temp = await makeTempDir('push-service');
    cleanups.push(temp.remove);
    const log = capturingLog();
    const service = new PushService({
      config: testConfig(temp.dir),
      backend: DEAD_BACKEND,
      log,
      settings: { pollIntervalMs: 50 },
    });
    await service.start();
    expect(service.activeWorker).toBeDefined();
    expect(log.lines[0]).toEqual({ level: 'info', message: 'push: delivering start alerts' });
    // The backend is down: the worker reports it once and keeps trying in the background.
    const failures = () => log.lines.filter((line) => line.message.startsWith('push: claiming start alerts failed'));
    await vi.waitFor(() => expect(failures()).toHaveLength(1), { timeout: 5_000, interval: 20 });
    // A window of several poll intervals on the real clock, in which a repeated report would show.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await service.stop();
    expect(failures()).toHaveLength(1);
  });
});

describe('device tokens', () => {
  const keys = { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') };
  const token = (endpoint: string, extra: object = {}) =>
    JSON.stringify({ endpoint, expirationTime: null, keys, ...extra });

  it('accepts a browser subscription with an https endpoint', () => {
    expect(parsePushToken(token('https://fcm.googleapis.com/fcm/send/abc'), { allowPlainHttp: false })).toMatchObject({
      ok: true,
    });
  });

  it('refuses tokens that are not subscriptions, with the reason', () => {
    expect(parsePushToken('ExponentPushToken[abc]', { allowPlainHttp: false })).toEqual({
      ok: false,
      reason: 'the token is not JSON (not a Web Push subscription)',
    });
    expect(
      parsePushToken(
        JSON.stringify({ endpoint: 'https://push.example.org/1', keys: { p256dh: 'AAAA', auth: keys.auth } }),
        { allowPlainHttp: false },
      ),
    ).toEqual({ ok: false, reason: 'keys.p256dh: must be 65 bytes' });
  });

  it('refuses plain HTTP, and off loopback even when plain HTTP is allowed', () => {
    expect(parsePushToken(token('http://127.0.0.1:9000/push/1'), { allowPlainHttp: false })).toEqual({
      ok: false,
      reason: 'endpoint: must be an https URL',
    });
    expect(parsePushToken(token('http://127.0.0.1:9000/push/1'), { allowPlainHttp: true })).toMatchObject({ ok: true });
    expect(parsePushToken(token('http://192.168.1.10/push/1'), { allowPlainHttp: true })).toEqual({
      ok: false,
      reason: 'endpoint: must be an https URL',
    });
  });

  it('backs off exponentially with jitter, within the cap, and honours a longer Retry-After', () => {
    const worker = new PushWorker(
      new OutboxClient(new BackendClient(DEAD_BACKEND)),
      { publicKey: '', privateKey: '', subject: '' },
      capturingLog(),
      {
        retryBaseSeconds: 2,
        retryMaxSeconds: 300,
        maxAgeSeconds: 3600,
      },
    );
    for (let round = 0; round < 50; round += 1) {
      expect(worker.retryDelaySeconds(1, undefined)).toBeGreaterThanOrEqual(2);
      expect(worker.retryDelaySeconds(1, undefined)).toBeLessThanOrEqual(3);
      const third = worker.retryDelaySeconds(3, undefined);
      expect(third).toBeGreaterThanOrEqual(6);
      expect(third).toBeLessThanOrEqual(10);
      expect(worker.retryDelaySeconds(20, undefined)).toBeLessThanOrEqual(300);
      expect(worker.retryDelaySeconds(1, 900)).toBe(900);
      expect(worker.retryDelaySeconds(1, 90_000)).toBe(3600);
    }
  });

  it('signs VAPID once per push service and renews the token an hour before it expires', () => {
    const keys = webpush.generateVAPIDKeys();
    // web-push refuses an expiry more than 24 h past the real clock, so the fake one starts at it.
    let now = Math.floor(Date.now() / 1000);
    const signer = new VapidSigner({ ...keys, subject: 'mailto:a@example.org' }, () => now);
    const fcm = signer.authorization('https://fcm.googleapis.com/fcm/send/abc');
    expect(signer.authorization('https://fcm.googleapis.com/fcm/send/other')).toBe(fcm);
    const mozilla = signer.authorization('https://updates.push.services.mozilla.com/wpush/v2/x');
    expect(mozilla).not.toBe(fcm);
    const claims = (header: string) =>
      JSON.parse(Buffer.from(/t=([^.]+)\.([^.]+)\./.exec(header)![2]!, 'base64url').toString()) as {
        aud: string;
        exp: number;
      };
    expect(claims(fcm)).toMatchObject({ aud: 'https://fcm.googleapis.com', exp: now + 12 * 3600 });
    expect(claims(mozilla).aud).toBe('https://updates.push.services.mozilla.com');
    now += 10 * 3600;
    expect(signer.authorization('https://fcm.googleapis.com/x')).toBe(fcm);
    now += 1 * 3600 + 1;
    const renewed = signer.authorization('https://fcm.googleapis.com/x');
    expect(renewed).not.toBe(fcm);
    expect(claims(renewed).exp).toBe(now + 12 * 3600);
  });

  it('reads Retry-After as seconds or a date', () => {
    expect(parseRetryAfter('120')).toBe(120);
    expect(parseRetryAfter(new Date(Date.UTC(2030, 0, 1, 0, 1)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(60);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(undefined)).toBeUndefined();
  });
});
