// Runs the outbox: flushes when something is queued, when the browser comes back online, when the
// tab becomes visible, when the server answers again after it did not (the health watch), and on a
// backoff timer while changes wait. The health watch also has the server asked, every
// SESSION_CHECK_MS and when the tab comes back, whether this device is still signed in (auth.ts),
// so a sign-in ended elsewhere shows before the next change. Flushes of several tabs are serialised with a tab lock (Web
// Locks, or on a plain-HTTP page their stand-in: lib/tab-locks.ts), so two tabs never send the same
// entry at once.
import { BackendWriter } from '../lib/backend-writer.ts';
import { clientConfig } from '../lib/client-config.ts';
import { IdbOutboxStore } from '../lib/db.ts';
import { HealthWatch, pingServer } from '../lib/health-watch.ts';
import { Outbox, outboxKey, type OutboxEntry, type OutboxOp } from '../lib/outbox.ts';
import { tabLocks } from '../lib/tab-locks.ts';
import { accessToken, checkSession } from './auth.ts';
import { account, db, online, serverReachable, sessions, syncState } from './signals.ts';

let outbox: Outbox | undefined;
let retryTimer: ReturnType<typeof setTimeout> | undefined;
let backoffMs = 2000;
const MAX_BACKOFF_MS = 60_000;

function webLock<T>(work: () => Promise<T>): Promise<T> {
  return tabLocks().request('studyhall-outbox', {}, work);
}

/**
 * A session the backend recorded is marked synced in the local data. Done here rather than in
 * data.ts because data.ts queues its changes into this outbox: the import goes one way.
 */
async function markSessionSynced(id: string): Promise<void> {
  const database = db.value;
  if (!database) return;
  const session = await database.get('sessions', id);
  if (!session || session.synced) return;
  const synced = { ...session, synced: true };
  await database.put('sessions', synced);
  sessions.value = sessions.value.map((item) => (item.id === id ? synced : item));
}

function currentOutbox(): Outbox | undefined {
  if (outbox || !db.value) return outbox;
  const writer = new BackendWriter({
    baseUrl: '/__backend',
    anonKey: async () => (await clientConfig()).anon_key,
    token: (refresh) => accessToken(refresh),
    userId: () => account.value?.userId ?? null,
  });
  outbox = new Outbox(
    new IdbOutboxStore(db.value),
    {
      send: async (op) => {
        await writer.send(op);
        if (op.kind === 'session') await markSessionSynced(op.session.id);
      },
    },
    webLock,
  );
  return outbox;
}

/** Forgets the outbox of a student who signed out. */
export function closeOutbox(): void {
  outbox = undefined;
  clearTimeout(retryTimer);
}

export async function refreshSyncCounts(): Promise<OutboxEntry[]> {
  const box = currentOutbox();
  if (!box) return [];
  const entries = await box.entries();
  const failed = entries.filter((entry) => entry.failed).length;
  syncState.value = { ...syncState.value, pending: entries.length - failed, failed, known: true };
  return entries;
}

/**
 * Queues a change and starts sending it at once. `persist` (the local record the change belongs
 * to) is written after the outbox entry, while the send is already under way: a page closed right
 * after it leaves the change queued (it drains on the next load) or already sent, never a local
 * record the outbox does not know.
 */
export async function enqueue(op: OutboxOp, persist?: () => Promise<void>): Promise<void> {
  const box = currentOutbox();
  if (box) {
    await box.enqueue(op);
    await refreshSyncCounts();
  }
  const sending = box ? flushNow() : undefined;
  await persist?.();
  // The send may have finished before the session was written: mark it then.
  if (box && op.kind === 'session')
    void sending?.then(async () => {
      if (!(await box.holds(outboxKey(op)))) await markSessionSynced(op.session.id);
    });
}

export async function flushNow(): Promise<void> {
  const box = currentOutbox();
  if (!box || !account.value) return;
  clearTimeout(retryTimer);
  syncState.value = { ...syncState.value, syncing: true };
  try {
    const result = await box.flush();
    serverReachable.value = result.stoppedBy !== 'offline';
    health.learned(serverReachable.value);
    syncState.value = {
      pending: result.pending,
      failed: result.failed,
      blockedBy: result.stoppedBy,
      syncing: false,
      known: true,
    };
    if (result.stoppedBy && result.stoppedBy !== 'signed_out') {
      retryTimer = setTimeout(() => void flushNow(), backoffMs);
      backoffMs = Math.min(MAX_BACKOFF_MS, backoffMs * 2);
    } else {
      backoffMs = 2000;
    }
    // Refused as signed out: ask the server now whether this device's sign-in was ended.
    if (result.stoppedBy === 'signed_out') void checkSession(true);
  } catch {
    syncState.value = { ...syncState.value, syncing: false };
  }
  await refreshSyncCounts();
}

export async function retryEntry(key: string): Promise<void> {
  await currentOutbox()?.retry(key);
  await flushNow();
}

/**
 * After signing in again: the entries set aside meanwhile are put back in line, so one an older
 * version of the app refused for the sign-in alone ("Invalid Refresh Token") is sent too. Each
 * write is idempotent; one the backend refuses for its data is set aside again.
 */
export async function retryRefused(): Promise<void> {
  const box = currentOutbox();
  if (!box) return;
  for (const entry of await box.entries()) if (entry.failed) await box.retry(entry.key);
  await refreshSyncCounts();
}

export async function discardEntry(key: string): Promise<void> {
  await currentOutbox()?.discard(key);
  await refreshSyncCounts();
}

const health = new HealthWatch({
  ping: () => pingServer(),
  urgent: () => syncState.value.pending > 0 || syncState.value.syncing,
  hidden: () => typeof document !== 'undefined' && document.visibilityState === 'hidden',
  report: (reachable, back) => {
    serverReachable.value = reachable;
    // The server answers: every SESSION_CHECK_MS (auth.ts) it is also asked whether this device is still signed in.
    if (reachable) void checkSession(back);
    if (back && syncState.value.pending > 0) {
      backoffMs = 2000;
      void flushNow();
    }
  },
});

/**
 * Asks the server now whether it answers: for a hint (the phone-link stream dropped) that the
 * server may be gone, which only a ping that goes unanswered confirms.
 */
export function checkServerNow(): Promise<void> {
  return health.check();
}

let triggersInstalled = false;

export function startSyncTriggers(): void {
  if (triggersInstalled) return void flushNow();
  triggersInstalled = true;
  window.addEventListener('online', () => {
    online.value = true;
    backoffMs = 2000;
    void health.check();
    void flushNow();
  });
  window.addEventListener('offline', () => {
    online.value = false;
    void health.check();
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState !== 'visible') return;
    void health.check();
    void checkSession(true);
    if (syncState.value.pending > 0) void flushNow();
  });
  health.start();
  void flushNow();
}
