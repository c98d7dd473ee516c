// Web Push in a headless browser, which has no push service to subscribe with: PushManager answers
// with a subscription of the loopback push receiver (gateway/test/push-receiver.ts: a real P-256 key
// and auth secret), so everything else, the app's subscribing and the server's sending, is real.
import type { BrowserContext } from 'playwright-core';

/**
 * Makes every page of the context subscribe with `token` (the receiver's subscription as JSON).
 * The page keeps the application server key it was asked for under localStorage 'test-push-key';
 * a test may replace the subscription later by storing another token under 'test-push-token', as
 * a browser may replace one on its own.
 */
export async function fakePushSubscriptions(context: BrowserContext, token: string): Promise<void> {
  await context.addInitScript((first: string) => {
    const current = () => localStorage.getItem('test-push-token') ?? first;
    const subscription = (key: number[]) => ({
      ...JSON.parse(current()),
      options: { applicationServerKey: new Uint8Array(key).buffer, userVisibleOnly: true },
      toJSON: () => JSON.parse(current()),
      unsubscribe: async () => {
        localStorage.removeItem('test-push-key');
        return true;
      },
    });
    PushManager.prototype.subscribe = async function (options?: PushSubscriptionOptionsInit) {
      const key = Array.from(new Uint8Array(options?.applicationServerKey as ArrayBuffer));
      localStorage.setItem('test-push-key', JSON.stringify(key));
      return subscription(key) as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function () {
      const key = localStorage.getItem('test-push-key');
      return (key ? subscription(JSON.parse(key) as number[]) : null) as unknown as PushSubscription;
    };
  }, token);
}
