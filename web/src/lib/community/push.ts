// "Allow notifications on this device": the browser's Web Push subscription, made with this
// server's VAPID public key, stored on the backend as a device token (the subscription's JSON) so
// the server can send start alerts here. Turning it off removes the token and unsubscribes.
import { z } from 'zod';
import { ApiError, requestJson } from '../api.ts';
import { isSecurePage } from '../secure-page.ts';
import { client, CommunityError, communityError, rpc } from './backend.ts';

/**
 * unavailable: this server has no Web Push identity (its key route answers 503), so nothing can
 * arrive. insecure: the page is not a secure context (a plain-HTTP LAN address), where browsers
 * have no service worker or push subscription, whatever this browser can do elsewhere.
 */
export type DeviceAlerts = 'insecure' | 'unsupported' | 'unavailable' | 'blocked' | 'off' | 'on';

const TOKEN_KEY = 'studyhall-push-token';

/**
 * How long the service worker and the browser's push service get to answer. A browser with no
 * push service it can reach (no Google services, a blocked network) never settles subscribe().
 */
export const PUSH_ANSWER_TIMEOUT_MS = 10_000;

/** `work`, or a push_timeout error once `ms` have passed without an answer. */
export function withinTime<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new CommunityError(
            'push_timeout',
            `${what} did not answer within ${Math.round(ms / 1000)} seconds, so notifications are not on. Check the connection and try again; some browsers (without Google services, or in a private window) cannot receive them at all.`,
          ),
        ),
      ms,
    );
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

export function pushSupported(): boolean {
  return (
    typeof window !== 'undefined' && 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window
  );
}

/** The VAPID key as the bytes PushManager.subscribe wants (it arrives base64url-encoded). */
export function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const padded = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const raw = atob(padded);
  const bytes = new Uint8Array(new ArrayBuffer(raw.length));
  for (let index = 0; index < raw.length; index++) bytes[index] = raw.charCodeAt(index);
  return bytes;
}

export async function vapidPublicKey(): Promise<string> {
  try {
    const answer = z.object({ public_key: z.string().min(20) }).parse(await requestJson('/api/push/vapid-public-key'));
    return answer.public_key;
  } catch (error) {
    if (error instanceof ApiError && error.offline) throw new CommunityError('offline', error.message);
    throw new CommunityError('push_unavailable', 'This server cannot send notifications yet.');
  }
}

export async function deviceAlerts(): Promise<DeviceAlerts> {
  if (!isSecurePage()) return 'insecure';
  if (!pushSupported()) return 'unsupported';
  if (Notification.permission === 'denied') return 'blocked';
  const registration = await navigator.serviceWorker.getRegistration();
  const subscription = await registration?.pushManager.getSubscription();
  const stored = localStorage.getItem(TOKEN_KEY);
  if (subscription && stored) {
    await registerAgainIfChanged(subscription, stored);
    return 'on';
  }
  try {
    await vapidPublicKey();
  } catch (error) {
    if (error instanceof CommunityError && error.code === 'push_unavailable') return 'unavailable';
  }
  return 'off';
}

/**
 * The browser may replace a subscription (a new endpoint or keys) without asking; the server then
 * holds a token that no longer reaches this device. Register the current one and drop the old.
 */
async function registerAgainIfChanged(subscription: PushSubscription, stored: string): Promise<void> {
  const token = JSON.stringify(subscription.toJSON());
  if (token === stored) return;
  try {
    await rpc('community_register_device_token', { p_token: token }, z.string());
    localStorage.setItem(TOKEN_KEY, token);
    await (await client()).from('community_device_tokens').delete().eq('token', stored);
  } catch {
    // Offline or signed out: the next look at this device tries again.
  }
}

export async function enableDeviceAlerts(): Promise<void> {
  if (!pushSupported())
    throw new CommunityError('push_unsupported', 'This browser cannot show notifications from studyhall.');
  const key = await vapidPublicKey();
  const permission = await Notification.requestPermission();
  if (permission !== 'granted')
    throw new CommunityError('notifications_blocked', 'Notifications are blocked for this site in the browser.');
  const registration = await withinTime(
    navigator.serviceWorker.ready,
    PUSH_ANSWER_TIMEOUT_MS,
    "The app's background helper",
  );
  const wanted = keyBytes(key);
  let subscription = await registration.pushManager.getSubscription();
  // A subscription made with another key (a new server) cannot receive this server's pushes.
  const existingKey = subscription?.options.applicationServerKey;
  if (subscription && existingKey && !sameBytes(new Uint8Array(existingKey), wanted)) {
    await subscription.unsubscribe();
    subscription = null;
  }
  try {
    subscription ??= await withinTime(
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: wanted }),
      PUSH_ANSWER_TIMEOUT_MS,
      "The browser's push service",
    );
  } catch (error) {
    if (error instanceof CommunityError) throw error;
    throw new CommunityError(
      'push_subscribe_failed',
      `The browser could not subscribe to notifications (${(error as Error).message}).`,
    );
  }
  const token = JSON.stringify(subscription.toJSON());
  await rpc('community_register_device_token', { p_token: token }, z.string());
  localStorage.setItem(TOKEN_KEY, token);
}

export async function disableDeviceAlerts(): Promise<void> {
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) {
    const { error, status } = await (await client()).from('community_device_tokens').delete().eq('token', token);
    if (error) throw communityError(error, status);
    localStorage.removeItem(TOKEN_KEY);
  }
  const registration = await navigator.serviceWorker.getRegistration();
  await (await registration?.pushManager.getSubscription())?.unsubscribe();
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}
