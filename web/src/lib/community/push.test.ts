// @vitest-environment happy-dom
// Subscribing on a browser whose push service never answers (or whose service worker never gets
// ready) ends with a push_timeout error after ten seconds instead of waiting forever.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { enableDeviceAlerts, PUSH_ANSWER_TIMEOUT_MS } from './push.ts';

const never = () => new Promise<never>(() => undefined);

function browserWith(worker: { ready: Promise<unknown> }) {
  vi.stubGlobal('PushManager', class {});
  vi.stubGlobal('Notification', { permission: 'default', requestPermission: async () => 'granted' });
  Object.defineProperty(navigator, 'serviceWorker', { configurable: true, value: worker });
  vi.stubGlobal(
    'fetch',
    async () =>
      new Response(JSON.stringify({ public_key: `B${'A'.repeat(86)}` }), {
        headers: { 'content-type': 'application/json' },
      }),
  );
}

beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('enableDeviceAlerts', () => {
  it('gives up with push_timeout when the push service never answers', async () => {
    browserWith({ ready: Promise.resolve({ pushManager: { getSubscription: async () => null, subscribe: never } }) });
    const result = enableDeviceAlerts().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(PUSH_ANSWER_TIMEOUT_MS + 100);
    expect(await result).toMatchObject({
      code: 'push_timeout',
      message: expect.stringMatching(/^The browser's push service did not answer within 10 seconds/),
    });
  });

  it('gives up with push_timeout when the service worker never gets ready', async () => {
    browserWith({ ready: never() });
    const result = enableDeviceAlerts().catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(PUSH_ANSWER_TIMEOUT_MS + 100);
    expect(await result).toMatchObject({ code: 'push_timeout' });
  });

  it('still says why when the browser refuses to subscribe', async () => {
    browserWith({
      ready: Promise.resolve({
        pushManager: {
          getSubscription: async () => null,
          subscribe: async () => {
            throw new Error('Registration failed - push service error');
          },
        },
      }),
    });
    await expect(enableDeviceAlerts()).rejects.toMatchObject({ code: 'push_subscribe_failed' });
  });
});
