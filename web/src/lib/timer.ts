// The focus timer as pure functions of (state, now). While running, the only truth is
// completionAtMs, the wall-clock instant the current phase ends: the remaining time is always
// completionAtMs - now, so a reload, a sleeping laptop or a throttled hidden tab never drifts.
// A run of phases is focus, break, focus, ..., focus (`cycles` focus phases, a break between two).

export type Phase = 'idle' | 'focus' | 'break';

export interface TimerSettings {
  focusMinutes: number;
  breakMinutes: number;
  cycles: number;
}

export interface Attempts {
  correct: number;
  incorrect: number;
  skipped: number;
}

export type CountedAttempt = 'correct' | 'incorrect' | 'skip';

export interface TimerState {
  phase: Phase;
  running: boolean;
  /** While running: when the current phase ends (ms epoch). Null while paused or idle. */
  completionAtMs: number | null;
  /** While paused: what is left of the current phase. */
  remainingMs: number;
  /** The length of the current phase, for the progress ring. */
  phaseLengthMs: number;
  /** 1-based number of the current focus phase (a break belongs to the focus before it). */
  cycle: number;
  /** When the student first pressed Start in this session (ms epoch). */
  startedAtMs: number | null;
  /** Focus time of the phases already over in this session. */
  focusedMs: number;
  /** All focus phases are over: the session waits for Finish. */
  complete: boolean;
  settings: TimerSettings;
  attempts: Attempts;
  /** The order attempts were counted in, so Undo removes the latest one. */
  history: CountedAttempt[];
  target: number | null;
}

const MINUTE = 60_000;

export const defaultTimerSettings: TimerSettings = { focusMinutes: 25, breakMinutes: 5, cycles: 4 };

export function idleTimer(settings: TimerSettings = defaultTimerSettings, target: number | null = null): TimerState {
  return {
    phase: 'idle',
    running: false,
    completionAtMs: null,
    remainingMs: settings.focusMinutes * MINUTE,
    phaseLengthMs: settings.focusMinutes * MINUTE,
    cycle: 1,
    startedAtMs: null,
    focusedMs: 0,
    complete: false,
    settings,
    attempts: { correct: 0, incorrect: 0, skipped: 0 },
    history: [],
    target,
  };
}

export function remainingMs(state: TimerState, now: number): number {
  if (state.running && state.completionAtMs !== null) return Math.max(0, state.completionAtMs - now);
  return state.remainingMs;
}

/** Fraction of the current phase already done, 0..1, from completionAtMs (never from a counter). */
export function progress(state: TimerState, now: number): number {
  if (state.phase === 'idle' || state.phaseLengthMs <= 0) return 0;
  return Math.min(1, Math.max(0, 1 - remainingMs(state, now) / state.phaseLengthMs));
}

/** Focus time in this session so far, the current phase included. */
export function focusedMs(state: TimerState, now: number): number {
  const current = state.phase === 'focus' && !state.complete ? state.phaseLengthMs - remainingMs(state, now) : 0;
  return state.focusedMs + Math.max(0, current);
}

export function start(state: TimerState, now: number): TimerState {
  if (state.phase !== 'idle') return resume(state, now);
  const length = state.settings.focusMinutes * MINUTE;
  return {
    ...state,
    phase: 'focus',
    running: true,
    complete: false,
    cycle: 1,
    focusedMs: 0,
    startedAtMs: now,
    phaseLengthMs: length,
    remainingMs: length,
    completionAtMs: now + length,
  };
}

export function pause(state: TimerState, now: number): TimerState {
  if (!state.running) return state;
  return { ...state, running: false, remainingMs: remainingMs(state, now), completionAtMs: null };
}

export function resume(state: TimerState, now: number): TimerState {
  if (state.running || state.phase === 'idle' || state.complete) return state;
  return { ...state, running: true, completionAtMs: now + state.remainingMs };
}

/**
 * Moves through every phase that ended before `now`, each next phase starting exactly when the
 * previous one ended (not when the page noticed): after a two-hour sleep the timer is where it
 * would have been had the page stayed awake.
 */
export function advance(state: TimerState, now: number): TimerState {
  let next = state;
  while (next.running && next.completionAtMs !== null && now >= next.completionAtMs) {
    const endedAt = next.completionAtMs;
    if (next.phase === 'focus') {
      const focused = next.focusedMs + next.phaseLengthMs;
      if (next.cycle >= next.settings.cycles) {
        next = {
          ...next,
          running: false,
          complete: true,
          focusedMs: focused,
          phaseLengthMs: next.phaseLengthMs,
          remainingMs: 0,
          completionAtMs: null,
        };
      } else {
        const length = next.settings.breakMinutes * MINUTE;
        next = {
          ...next,
          phase: 'break',
          focusedMs: focused,
          phaseLengthMs: length,
          remainingMs: length,
          completionAtMs: endedAt + length,
        };
      }
    } else {
      const length = next.settings.focusMinutes * MINUTE;
      next = {
        ...next,
        phase: 'focus',
        cycle: next.cycle + 1,
        phaseLengthMs: length,
        remainingMs: length,
        completionAtMs: endedAt + length,
      };
    }
  }
  return next;
}

/** The settled minutes Finish records: focus time rounded to the nearest minute. */
export function settledMinutes(state: TimerState, now: number): number {
  return Math.round(focusedMs(state, now) / MINUTE);
}

export function countAttempt(state: TimerState, kind: CountedAttempt): TimerState {
  const key = kind === 'skip' ? 'skipped' : kind;
  return {
    ...state,
    attempts: { ...state.attempts, [key]: state.attempts[key] + 1 },
    history: [...state.history, kind],
  };
}

export function undoAttempt(state: TimerState): TimerState {
  const last = state.history.at(-1);
  if (!last) return state;
  const key = last === 'skip' ? 'skipped' : last;
  return {
    ...state,
    attempts: { ...state.attempts, [key]: Math.max(0, state.attempts[key] - 1) },
    history: state.history.slice(0, -1),
  };
}

export function setTarget(state: TimerState, target: number | null): TimerState {
  return { ...state, target };
}

export function withSettings(state: TimerState, settings: TimerSettings): TimerState {
  // Lengths apply from the next phase; an idle timer shows the new focus length at once.
  if (state.phase !== 'idle') return { ...state, settings };
  return { ...idleTimer(settings, state.target), attempts: state.attempts, history: state.history };
}

export function attemptsTotal(attempts: Attempts): number {
  return attempts.correct + attempts.incorrect + attempts.skipped;
}
