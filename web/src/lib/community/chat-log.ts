// The chat's message list as pure functions: merging pages, live inserts and catch-up fetches by
// id (so nothing shows twice whatever order they arrive in), ordering as the database does
// (created_at, then id), and the layout the screen draws: runs of one sender within one minute,
// a time divider after a long pause, and a "New messages" marker before the first unread one.
import type { ChatMessage } from '#contracts/community-rows.ts';

/** Microseconds since the epoch: Postgres keeps microseconds, and Date.parse would drop them. */
export function instantOf(timestamp: string): number {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,6}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(
    timestamp.trim(),
  );
  if (!match) return Date.parse(timestamp) * 1000;
  const [, date, time, fraction = '', zone = 'Z'] = match;
  const offset =
    zone === 'Z'
      ? 'Z'
      : zone.length === 3
        ? `${zone}:00`
        : zone.includes(':')
          ? zone
          : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  return Date.parse(`${date}T${time}${offset}`) * 1000 + Number(fraction.padEnd(6, '0'));
}

export function compareMessages(a: ChatMessage, b: ChatMessage): number {
  return instantOf(a.created_at) - instantOf(b.created_at) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** `current` plus `incoming`, each id once (the later copy wins), oldest first. */
export function mergeMessages(current: readonly ChatMessage[], incoming: readonly ChatMessage[]): ChatMessage[] {
  if (incoming.length === 0) return current as ChatMessage[];
  const byId = new Map<string, ChatMessage>();
  for (const message of current) byId.set(message.id, message);
  for (const message of incoming) byId.set(message.id, message);
  return [...byId.values()].sort(compareMessages);
}

/** A pause longer than this between two messages gets a time divider. */
export const PAUSE_MS = 30 * 60_000;

export type ChatItem =
  | { kind: 'divider'; key: string; at: number }
  | { kind: 'unread'; key: string }
  | { kind: 'run'; key: string; senderId: string | null; at: number; messages: ChatMessage[] };

/**
 * Runs of consecutive messages by one sender within one clock minute, with a divider before the
 * first message and after each long pause, and the unread marker before `firstUnreadId`.
 */
export function layoutMessages(messages: readonly ChatMessage[], firstUnreadId: string | null = null): ChatItem[] {
  const items: ChatItem[] = [];
  let run: Extract<ChatItem, { kind: 'run' }> | null = null;
  let previousMs: number | null = null;
  for (const message of messages) {
    const ms = Math.floor(instantOf(message.created_at) / 1000);
    const sameDay = previousMs !== null && new Date(previousMs).toDateString() === new Date(ms).toDateString();
    if (previousMs === null || ms - previousMs > PAUSE_MS || !sameDay) {
      items.push({ kind: 'divider', key: `divider-${message.id}`, at: ms });
      run = null;
    }
    if (message.id === firstUnreadId) {
      items.push({ kind: 'unread', key: 'unread' });
      run = null;
    }
    if (run && run.senderId === message.sender_id && Math.floor(run.at / 60_000) === Math.floor(ms / 60_000)) {
      run.messages.push(message);
    } else {
      run = { kind: 'run', key: `run-${message.id}`, senderId: message.sender_id, at: ms, messages: [message] };
      items.push(run);
    }
    previousMs = ms;
  }
  return items;
}

/**
 * Where a catch-up fetch after a reconnect starts: a while before the newest message held, because
 * a message's created_at is its transaction's start, so one that committed late can carry an
 * earlier time than a message already shown. The overlap is merged away by id.
 */
export const CATCH_UP_OVERLAP_MS = 60_000;

export function catchUpFrom(messages: readonly ChatMessage[], now = Date.now()): string {
  const newest = messages.at(-1);
  const fromMs = newest
    ? Math.floor(instantOf(newest.created_at) / 1000) - CATCH_UP_OVERLAP_MS
    : now - CATCH_UP_OVERLAP_MS;
  return new Date(fromMs).toISOString();
}
