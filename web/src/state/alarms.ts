// What the page does when the timer's running phase ends: the chosen sound (unless muted in
// Settings) and, while the page is hidden, a system notification. The permission to notify is
// asked from a gesture only (Start, or the button in Settings), never on its own; a student who
// denied it keeps the sound, and Settings says how to allow it again. A page that is not a secure
// context (a plain-HTTP LAN address) cannot notify at all: the browser answers every request
// "denied" there, so it is not asked, and Settings says what notifications need instead.
import { signal } from '@preact/signals';
import { phaseEndBetween, phaseEndMessage, type PhaseEnd } from '../lib/alarm.ts';
import { playChime, primeChime } from '../lib/chime.ts';
import { isSecurePage } from '../lib/secure-page.ts';
import type { TimerState } from '../lib/timer.ts';
import { settings } from './signals.ts';

export type NotifyPermission = NotificationPermission | 'unsupported' | 'insecure';

function currentPermission(): NotifyPermission {
  if (typeof Notification === 'undefined') return 'unsupported';
  return isSecurePage() ? Notification.permission : 'insecure';
}

/** Whether this browser lets the page notify (Settings shows it). */
export const notifyPermission = signal<NotifyPermission>(currentPermission());

/** From a gesture: asks once, while the browser has not been told either way. */
export async function askToNotify(): Promise<NotifyPermission> {
  if (currentPermission() === 'default') {
    try {
      await Notification.requestPermission();
    } catch {
      // An old browser's callback form, or a refusal to ask: the permission stays as it is.
    }
  }
  notifyPermission.value = currentPermission();
  return notifyPermission.value;
}

/** The student pressed Start (or Resume): sound may play later, and the browser may ask about notifications. */
export function onStartGesture(): void {
  primeChime();
  void askToNotify();
}

async function showNotification(end: PhaseEnd): Promise<void> {
  if (currentPermission() !== 'granted') return;
  const { title, body } = phaseEndMessage(end);
  // The same tag as the service worker's push notification, so the two replace each other.
  const options: NotificationOptions = { body, tag: 'phase-end', icon: '/icon.svg', data: { url: '/focus' } };
  const registration =
    'serviceWorker' in navigator && navigator.serviceWorker.controller
      ? await navigator.serviceWorker.getRegistration().catch(() => undefined)
      : undefined;
  if (registration) return registration.showNotification(title, options);
  const notification = new Notification(title, options);
  notification.onclick = () => {
    window.focus();
    notification.close();
  };
}

/** The timer is about to change from `before` at `now`: announce a phase that ended in between. */
export function announcePhaseEnd(before: TimerState, now: number): PhaseEnd | null {
  const end = phaseEndBetween(before, now);
  if (!end) return null;
  if (!settings.value.alarmMuted) void playChime(settings.value.alarmSound).catch(() => undefined);
  if (typeof document !== 'undefined' && document.visibilityState === 'hidden')
    void showNotification(end).catch(() => undefined);
  return end;
}
