// The timer's actions: every change is persisted, shared with other tabs, and posted to the relay
// as the snapshot the phone companion reads. Phone and Pop-out actions arrive through applyPipAction.
// One tab of a browser holds the link to the phone (phone-link.ts): it pairs, posts the snapshots
// and applies the phone's actions; the other tabs follow its timer over the tabs channel.
import { signal } from '@preact/signals';
import type { PostedTimerSnapshot } from '#contracts/timer-snapshot.ts';
import { writeKv } from '../lib/db.ts';
import type { PairingView } from '../lib/pairing.ts';
import { PhoneLink } from '../lib/phone-link.ts';
import { readStoredAccessToken } from '../lib/session-storage.ts';
import type { EventSourceLike, RelayedAction } from '../lib/relay.ts';
import {
  advance,
  attemptsTotal,
  countAttempt,
  focusedMs,
  idleTimer,
  pause,
  remainingMs,
  setTarget,
  settledMinutes,
  start,
  undoAttempt,
  type TimerState,
} from '../lib/timer.ts';
import { announcePhaseEnd } from './alarms.ts';
import { recordSession, subjectName } from './data.ts';
import { account, db, remoteBump, settings, tasks, timer } from './signals.ts';
import { channel } from './tabs.ts';

/** What the page posts to the relay: the contract's snapshot without the server's updatedAt. */
export type TimerSnapshot = PostedTimerSnapshot;

/** The subject and task chosen for the next or current session (kept with the timer). */
export interface Selection {
  subjectId: string | null;
  taskId: string | null;
}

export function snapshotOf(state: TimerState, selection: Selection, now: number): TimerSnapshot {
  const name = subjectName(selection.subjectId);
  const task = selection.taskId ? tasks.value.find((item) => item.id === selection.taskId) : undefined;
  return {
    phase: state.complete ? 'idle' : state.phase,
    running: state.running,
    remainingMs: Math.round(remainingMs(state, now)),
    completionAtMs: state.running ? state.completionAtMs : null,
    subject: selection.subjectId && name ? { id: selection.subjectId, name: name.slice(0, 200) } : null,
    task: task ? { id: task.id, title: task.title.slice(0, 500) } : null,
    attempts: { ...state.attempts },
    target: state.target,
    complete: state.complete,
  };
}

// The selection lives beside the timer state so a reload keeps it.
type StoredTimer = TimerState & { selection?: Selection };

export function selection(): Selection {
  return (timer.value as StoredTimer).selection ?? { subjectId: null, taskId: null };
}

/** What the phone-remote panel shows: pairing, the code, the phone's presence, trouble. */
export const pairing = signal<PairingView>({ status: 'pairing' });

let link: PhoneLink | undefined;

/**
 * Where the channel token is kept: per student in localStorage, so a reload, or another tab taking
 * the link over when this one closes, keeps the same code and the phone stays paired; another
 * student signing in on this browser never inherits it.
 */
function channelStorage(): Pick<Storage, 'getItem' | 'setItem' | 'removeItem'> | null {
  if (typeof localStorage === 'undefined') return null;
  const scoped = (key: string) => `${key}:${account.value?.userId ?? 'signed-out'}`;
  return {
    getItem: (key) => localStorage.getItem(scoped(key)),
    setItem: (key, value) => localStorage.setItem(scoped(key), value),
    removeItem: (key) => localStorage.removeItem(scoped(key)),
  };
}

/** This tab takes the link to the phone (it holds the relay lock). */
export function startPhoneLink(onStream?: (connected: boolean) => void): PhoneLink {
  link?.stop();
  link = new PhoneLink({
    fetch: (url, init) => fetch(url, init),
    openStream: (url) => new EventSource(url) as unknown as EventSourceLike,
    snapshot: () => snapshotOf(advance(timer.value, Date.now()), selection(), Date.now()),
    accessToken: () => (account.value && typeof localStorage !== 'undefined' ? readStoredAccessToken() : null),
    onAction: applyPipAction,
    onView: (view) => (pairing.value = view),
    ...(onStream ? { onStream } : {}),
    storage: channelStorage(),
  });
  link.start();
  return link;
}

export function stopPhoneLink(): void {
  link?.stop();
  link = undefined;
  pairing.value = { status: 'pairing' };
}

/** Another tab holds the link: this one only follows the timer. */
export function phoneLinkElsewhere(): void {
  pairing.value = { status: 'elsewhere' };
}

/** Ask the server again now (the panel's Retry). */
export function retryPairing(): void {
  link?.retryNow();
}

/** Posts the snapshot now, when this tab holds the link (the relay keeps only the latest). */
export function postSnapshot(): void {
  link?.post();
}

/** Resolves when the snapshots posted so far have landed. */
export function snapshotsSettled(): Promise<void> {
  return link?.settled() ?? Promise.resolve();
}

function commit(next: TimerState, options: { broadcast?: boolean } = {}): void {
  announcePhaseEnd(timer.value, Date.now());
  timer.value = next;
  if (db.value) void writeKv(db.value, 'timer', next);
  if (options.broadcast !== false) channel()?.postMessage({ type: 'timer', state: next });
  postSnapshot();
}

/** A timer change made in another tab: the tab holding the link tells the phone. */
export function adoptTimerFromTab(state: TimerState): void {
  timer.value = state;
  postSnapshot();
}

export function update(change: (state: TimerState, now: number) => TimerState): void {
  const now = Date.now();
  const next = change(advance(timer.value, now), now);
  if (next !== timer.value) commit(next);
}

export const startTimer = () => update(start);
export const pauseTimer = () => update(pause);

export function toggleTimer(): void {
  const state = advance(timer.value, Date.now());
  if (state.complete) return;
  if (state.running) pauseTimer();
  else startTimer();
}

export function choose(next: Partial<Selection>): void {
  update((state) => ({ ...state, selection: { ...selection(), ...next } }) as StoredTimer);
}

export const countCorrect = () => update((state) => countAttempt(state, 'correct'));
export const countIncorrect = () => update((state) => countAttempt(state, 'incorrect'));
export const countSkip = () => update((state) => countAttempt(state, 'skip'));
export const undoCount = () => update((state) => undoAttempt(state));
export const changeTarget = (target: number | null) => update((state) => setTarget(state, target));

/** Moves the timer to the next phase when one ended (called by the page's clock). */
export function tick(now: number): void {
  const next = advance(timer.value, now);
  if (next !== timer.value) commit(next);
}

/** A count made away from this page (the phone, the Pop-out): applied, and its number flashes. */
export function countFromAfar(kind: 'correct' | 'incorrect' | 'skip' | 'undo'): void {
  if (kind === 'correct') countCorrect();
  else if (kind === 'incorrect') countIncorrect();
  else if (kind === 'skip') countSkip();
  else return undoCount();
  remoteBump.value = { key: kind === 'skip' ? 'skipped' : kind, at: Date.now() };
}

/**
 * Start, pause or resume from the phone: each applies only to the state it names, so a tap made on
 * a screen a moment out of date (Resume after the page already resumed) changes nothing.
 */
export function runFromAfar(kind: 'start' | 'pause' | 'resume'): void {
  const state = advance(timer.value, Date.now());
  if (state.complete) return;
  if (kind === 'start' && state.phase === 'idle') startTimer();
  else if (kind === 'pause' && state.running) pauseTimer();
  else if (kind === 'resume' && !state.running && state.phase !== 'idle') startTimer();
}

/**
 * Finish from the phone: only a session that has started is settled (a tap made on a screen a
 * moment out of date, after the page finished, changes nothing). The outcome is shown on the page
 * as its own Finish shows it.
 */
export async function finishFromAfar(): Promise<void> {
  if (advance(timer.value, Date.now()).startedAtMs === null) return;
  await finishAndTell();
}

export function applyPipAction(action: RelayedAction): void {
  if (action.action === 'finish') return void finishFromAfar();
  if (action.action === 'start' || action.action === 'pause' || action.action === 'resume')
    return runFromAfar(action.action);
  if (action.action !== 'target') return countFromAfar(action.action);
  if (action.target !== undefined) changeTarget(action.target);
  remoteBump.value = { key: 'target', at: Date.now() };
}

export type FinishResult =
  | { recorded: true; minutes: number }
  /** Under a minute of focus: not a session. `kept` answers stay on the counters for the next one. */
  | { recorded: false; reason: 'too_short'; kept: number };

/** What the last Finish did, from the page or the phone, for the focus page to say; `at` tells two apart. */
export type FinishOutcome = { result: FinishResult; at: number } | { failed: true; at: number };
export const finishOutcome = signal<FinishOutcome | null>(null);

/**
 * Settles the session: records it when it holds at least a minute of focus, then resets the timer.
 * A session needs whole minutes (the database records 1 to 1440, and at most 10 answers a minute),
 * so under a minute nothing is recorded; the answers counted in it are not thrown away but stay on
 * the counters and are recorded with the next session (Clear answers takes them back).
 */
export async function finishSession(): Promise<FinishResult> {
  const now = Date.now();
  const state = advance(timer.value, now);
  const minutes = Math.min(1440, settledMinutes(state, now));
  const chosen = selection();
  const fresh = {
    ...idleTimer(
      {
        focusMinutes: settings.value.focusMinutes,
        breakMinutes: settings.value.breakMinutes,
        cycles: settings.value.cycles,
      },
      state.target,
    ),
    selection: chosen,
  } as StoredTimer;
  if (minutes < 1 || state.startedAtMs === null) {
    commit({ ...fresh, attempts: { ...state.attempts }, history: [...state.history] });
    return { recorded: false, reason: 'too_short', kept: attemptsTotal(state.attempts) };
  }
  const task = chosen.taskId ? tasks.value.find((item) => item.id === chosen.taskId) : undefined;
  await recordSession({
    startedAt: state.startedAtMs,
    endedAt: now,
    minutes,
    subjectId: chosen.subjectId,
    subjectName: subjectName(chosen.subjectId),
    taskId: task?.id ?? null,
    taskTitle: task?.title ?? null,
    correct: state.attempts.correct,
    incorrect: state.attempts.incorrect,
    skipped: state.attempts.skipped,
  });
  commit(fresh);
  return { recorded: true, minutes };
}

/** Finish, with its outcome kept for the page to show; a session the device could not keep stays on the timer. */
export async function finishAndTell(): Promise<FinishResult | null> {
  try {
    const result = await finishSession();
    finishOutcome.value = { result, at: Date.now() };
    return result;
  } catch {
    finishOutcome.value = { failed: true, at: Date.now() };
    return null;
  }
}

/** Takes back the answers a too-short session left on the counters (the student chose to). */
export function clearKeptAnswers(): void {
  update((state) =>
    state.phase === 'idle' ? { ...state, attempts: { correct: 0, incorrect: 0, skipped: 0 }, history: [] } : state,
  );
  finishOutcome.value = null;
}

export { focusedMs };
