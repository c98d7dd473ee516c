// What happens once a student is known (a stored session at start, or a fresh sign-in): their
// local data opens, the relay and the outbox start, and, when the server answers, the account's
// bootstrap bundle is applied, the history on the backend is merged in (state/history.ts) and a new
// device is offered its best backup.
import { effect } from '@preact/signals';
import { requestJson } from '../lib/api.ts';
import {
  forgetEndedSession,
  forgetSignOutByChoice,
  rememberSignOutByChoice,
  rememberSignedInHere,
} from '../lib/session-storage.ts';
import { tabLocks } from '../lib/tab-locks.ts';
import { openStudentDb, readKv, writeKv } from '../lib/db.ts';
import type { TimerState } from '../lib/timer.ts';
import { requireToken, signIn, watchSession } from './auth.ts';
import { hasLocalData, loadAll, reloadFromDb, saveSettings } from './data.ts';
import { adoptTimerFromTab, phoneLinkElsewhere, postSnapshot, startPhoneLink, stopPhoneLink, tick } from './focus.ts';
import {
  account,
  dataStatus,
  db,
  profile,
  relayConnected,
  serverReachable,
  sessionEnded,
  settings,
  syncState,
  timer,
} from './signals.ts';
import {
  checkServerNow,
  closeOutbox,
  enqueue,
  flushNow,
  refreshSyncCounts,
  retryRefused,
  startSyncTriggers,
} from './sync.ts';
import { closeChannel, listenToTabs } from './tabs.ts';
import { restoreOffer } from './restore-offer.ts';
import { startAutoBackup, stopAutoBackup } from './backups.ts';
import { startPresence } from './presence.ts';
import { pullHistory } from './history.ts';

let openedFor: string | null = null;
let releaseRelayLock: (() => void) | undefined;
let relayLockWait: AbortController | undefined;
let clock: ReturnType<typeof setInterval> | undefined;
let unreachableTimer: ReturnType<typeof setTimeout> | undefined;
/**
 * The relay stream doubles as a liveness hint: a drop that lasts this long has the server pinged
 * at once, and only an unanswered ping says "Offline". A stream can drop while the server answers
 * (another tab takes the phone link, a stream the browser closed), and the banner must not blink
 * then.
 */
const UNREACHABLE_AFTER_MS = 4000;

/**
 * Only one tab holds the link to the phone (a tab lock: Web Locks, or their stand-in on a plain-HTTP
 * page), so an action is applied by one tab only.
 */
function startRelay(): void {
  const run = () =>
    startPhoneLink((connected) => {
      relayConnected.value = connected;
      clearTimeout(unreachableTimer);
      if (connected) serverReachable.value = true;
      else unreachableTimer = setTimeout(() => void checkServerNow(), UNREACHABLE_AFTER_MS);
    });
  const locks = tabLocks();
  const hold = () =>
    new Promise<void>((resolve) => {
      releaseRelayLock = resolve;
      run();
    });
  relayLockWait = new AbortController();
  const { signal } = relayLockWait;
  void locks.request('studyhall-relay', { ifAvailable: true }, (lock) => {
    if (lock) return hold();
    // Another tab holds it: say so, and take over when that tab closes.
    phoneLinkElsewhere();
    void locks.request('studyhall-relay', { signal }, hold).catch(() => undefined);
    return undefined;
  });
}

function stopRelay(): void {
  relayLockWait?.abort();
  relayLockWait = undefined;
  stopPhoneLink();
  releaseRelayLock?.();
  releaseRelayLock = undefined;
  relayConnected.value = false;
}

interface BootstrapBundle {
  profile: { handle: string | null; display_name: string | null; avatar_url: string | null } | null;
  settings: { day_offset_hours: number; timezone_offset_minutes: number } | null;
}

/** Applies /__auth/bootstrap: the profile, and the day settings every device of the account shares. */
async function hydrate(): Promise<void> {
  const token = await requireToken();
  const bundle = await requestJson<BootstrapBundle>('/__auth/bootstrap', { token });
  serverReachable.value = true;
  if (bundle.profile && db.value) {
    profile.value = {
      handle: bundle.profile.handle,
      displayName: bundle.profile.display_name,
      avatarUrl: bundle.profile.avatar_url,
    };
    await writeKv(db.value, 'profile', profile.value);
  }
  if (bundle.settings) {
    if (bundle.settings.day_offset_hours !== settings.value.dayOffsetHours && db.value) {
      settings.value = { ...settings.value, dayOffsetHours: bundle.settings.day_offset_hours };
      await writeKv(db.value, 'settings', settings.value);
    }
    const browserOffset = -new Date().getTimezoneOffset();
    if (bundle.settings.timezone_offset_minutes !== browserOffset) {
      await enqueue({
        kind: 'settings',
        dayOffsetHours: settings.value.dayOffsetHours,
        timezoneOffsetMinutes: browserOffset,
      });
    }
  }
}

/**
 * A device that held nothing before this start is offered the best backup (subjects, settings and
 * whatever the backend does not hold), even when the history pull has just filled it.
 */
async function offerRestoreIfNew(hadLocalData: boolean): Promise<void> {
  if (!db.value || hadLocalData || (await readKv(db.value, 'restoreDeclined'))) return;
  await restoreOffer.check();
}

export async function openAccount(userId: string): Promise<void> {
  if (openedFor === userId) return;
  openedFor = userId;
  dataStatus.value = 'loading';
  try {
    const database = await openStudentDb(userId);
    await loadAll(database);
  } catch {
    dataStatus.value = 'error';
    openedFor = null;
    return;
  }
  listenToTabs((message) => {
    if (message.type === 'timer') adoptTimerFromTab(message.state as TimerState);
    else void reloadFromDb();
  });
  clock = setInterval(() => tick(Date.now()), 1000);
  startRelay();
  postSnapshot();
  startPresence();
  startSyncTriggers();
  await startAutoBackup();
  const pending = await refreshSyncCounts();
  if (pending.length > 0) void flushNow();
  const hadLocalData = hasLocalData();
  // The rest needs the server and supabase-js: after the first paint, never in its way. The
  // history is pulled after the day settings arrived (they decide each session's study day).
  setTimeout(() => {
    void watchSession().catch(() => undefined);
    void catchUp().then(() => offerRestoreIfNew(hadLocalData).catch(() => undefined));
  }, 300);
}

/** What the backend holds and this device does not (and the other way round): the day settings, then the history. */
async function catchUp(): Promise<void> {
  await hydrate().catch(() => undefined);
  await pullHistory().catch(() => undefined);
}

/**
 * Signs the student in again after the server ended this device's sign-in. Her data stayed open,
 * so for the same account nothing reopens: what waited is sent, what was set aside while she was
 * signed out is tried again, and the backend's news is pulled. Another account opens its own data
 * (hers stays on this device, its changes waiting for her next sign-in here).
 */
export async function signInAgain(email: string, password: string): Promise<void> {
  const before = account.value?.userId;
  await signIn('login', email, password);
  if (account.value?.userId !== before) return;
  await retryRefused();
  void flushNow();
  void catchUp();
}

export function closeAccount(): void {
  openedFor = null;
  stopRelay();
  clearInterval(clock);
  closeOutbox();
  stopAutoBackup();
  closeChannel();
  db.value?.close();
  db.value = null;
  dataStatus.value = 'loading';
  syncState.value = { pending: 0, failed: 0, blockedBy: null, syncing: false, known: false };
  restoreOffer.reset();
}

/**
 * Opens and closes a student's data as the account signal changes. The account goes to null only
 * when the student signs out herself (here, everywhere, or by deleting it): other tabs are told to
 * follow (auth.ts), and no "signed out on this device" is left behind for the next visit.
 */
export function followAccount(): void {
  effect(() => {
    const current = account.value;
    if (current) {
      rememberSignedInHere();
      if (!sessionEnded.peek()) forgetSignOutByChoice();
      // Another account signed in where one was open (after a sign-in the server ended): close hers first.
      if (openedFor && openedFor !== current.userId) closeAccount();
      void openAccount(current.userId);
    } else if (openedFor) {
      rememberSignOutByChoice(openedFor);
      forgetEndedSession();
      sessionEnded.value = false;
      closeAccount();
    }
  });
}

export { saveSettings, timer };
