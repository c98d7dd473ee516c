// Several tabs of the app share one timer and one set of data: a change in one tab is announced on
// a BroadcastChannel and the others apply it.
import { account } from './signals.ts';

export type TabMessage = { type: 'timer'; state: unknown } | { type: 'data' };

let current: { userId: string; channel: BroadcastChannel } | undefined;

export function channel(): BroadcastChannel | undefined {
  const userId = account.value?.userId;
  if (!userId || typeof BroadcastChannel === 'undefined') return undefined;
  if (current?.userId !== userId) {
    current?.channel.close();
    current = { userId, channel: new BroadcastChannel(`studyhall-${userId}`) };
  }
  return current.channel;
}

export function listenToTabs(onMessage: (message: TabMessage) => void): void {
  channel()?.addEventListener('message', (event: MessageEvent<TabMessage>) => onMessage(event.data));
}

/** Stops listening (the student signed out). */
export function closeChannel(): void {
  current?.channel.close();
  current = undefined;
}
