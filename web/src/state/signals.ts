// The app's state, in one place: signals the screens read and the actions in state/*.ts write.
import { computed, signal } from '@preact/signals';
import type { Db } from '../lib/db.ts';
import {
  defaultSettings,
  type AppSettings,
  type Profile,
  type StudySession,
  type Subject,
  type Task,
} from '../lib/model.ts';
import { readEndedSession, readStoredAccount, type StoredAccount } from '../lib/session-storage.ts';
import { describeSync } from '../lib/sync-status.ts';
import { idleTimer, type TimerState } from '../lib/timer.ts';

const storedAccount = typeof localStorage === 'undefined' ? null : readStoredAccount();
const endedAccount = storedAccount || typeof localStorage === 'undefined' ? null : readEndedSession();

/** Whose data this device shows: the signed-in student, or the one whose sign-in the server ended here. */
export const account = signal<StoredAccount | null>(storedAccount ?? endedAccount);

/**
 * The server ended this device's sign-in (a password changed or reset elsewhere, a ban, every
 * session ended): her data stays open and her changes wait in the outbox, and the app says
 * "Signed out on this device — sign in again" everywhere until she does.
 */
export const sessionEnded = signal(endedAccount !== null);

/** The "Sign in again" dialog is open. */
export const signInAgainOpen = signal(false);

/** The student's local data: `loading` until IndexedDB answered. */
export const dataStatus = signal<'loading' | 'ready' | 'error'>('loading');
export const db = signal<Db | null>(null);

export const subjects = signal<Subject[]>([]);
export const tasks = signal<Task[]>([]);
export const sessions = signal<StudySession[]>([]);
export const settings = signal<AppSettings>(defaultSettings);
export const profile = signal<Profile | null>(null);
export const timer = signal<TimerState>(idleTimer());

/** Bumped on every local change a backup should hold. */
export const dataVersion = signal(0);

export interface SyncState {
  pending: number;
  failed: number;
  /** `offline`, `signed_out`, or a server trouble's code while changes wait; null when all is sent. */
  blockedBy: string | null;
  syncing: boolean;
  /** The outbox was read since the data opened: until then nothing can be said about it. */
  known: boolean;
}
export const syncState = signal<SyncState>({ pending: 0, failed: 0, blockedBy: null, syncing: false, known: false });

/**
 * The last change to the student's data that this device could not keep (what it was, and the
 * browser's reason), until a later change is kept: the sync line and a banner say so.
 */
export interface SaveFailure {
  what: string;
  reason: string;
}
export const saveFailure = signal<SaveFailure | null>(null);

/** The browser's network and whether this server answered the last request. */
export const online = signal(typeof navigator === 'undefined' ? true : navigator.onLine);
export const serverReachable = signal(true);

/** The one sentence about syncing that the sidebar line and the banners both show. */
export const syncLine = computed(() =>
  describeSync({
    ...syncState.value,
    signedOut: sessionEnded.value,
    online: online.value,
    serverReachable: serverReachable.value,
    unsaved: saveFailure.value !== null,
  }),
);

/** A new service worker waits: the app offers "New version, reload". */
export const updateWaiting = signal<ServiceWorker | null>(null);

/** The relay stream of phone actions is connected. */
export const relayConnected = signal(false);

/** A counter changed by the phone or the Pop-out: which one, for the brief highlight. */
export const remoteBump = signal<{ key: 'correct' | 'incorrect' | 'skipped' | 'target'; at: number } | null>(null);
