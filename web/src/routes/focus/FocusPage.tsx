// /focus: one calm screen. The phase, the time in large digits inside its ring, the subject and
// task, the counters; the tasks of the day sit beside it. Keyboard: Space starts or pauses,
// C / I / S count, Z undoes.
import { useEffect, useState } from 'preact/hooks';
import { minutesText, plural } from '../../lib/format.ts';
import { advance, focusedMs } from '../../lib/timer.ts';
import { NOT_SAVED_TEXT } from '../../lib/sync-status.ts';
import {
  clearKeptAnswers,
  countCorrect,
  countIncorrect,
  countSkip,
  finishAndTell,
  finishOutcome,
  pauseTimer,
  type FinishOutcome,
  startTimer,
  toggleTimer,
  undoCount,
} from '../../state/focus.ts';
import { onStartGesture } from '../../state/alarms.ts';
import { timer } from '../../state/signals.ts';
import { Counters } from './Counters.tsx';
import { phaseLabel } from './phase-label.ts';
import { PhoneRemote } from './PhoneRemote.tsx';
import { Pickers } from './Pickers.tsx';
import { PopOutButton } from './PopOut.tsx';
import { TasksPanel } from './TasksPanel.tsx';
import { TimeRing } from './TimeRing.tsx';
import { useNow } from './useNow.ts';
import '../../styles/focus.css';

const TYPING = 'input, textarea, select, [contenteditable="true"]';
const PRESSABLE = 'button, a[href], summary, [role="button"]';

function useShortcuts() {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || event.repeat) return;
      const target = event.target as Element | null;
      if (target?.closest(TYPING) || target?.closest('dialog')) return;
      const key = event.key.toLowerCase();
      if (key === ' ') {
        // Space on a focused button presses that button; only elsewhere does it start or pause.
        if (target?.closest(PRESSABLE)) return;
        event.preventDefault();
        if (!timer.value.running) onStartGesture();
        toggleTimer();
      } else if (key === 'c') countCorrect();
      else if (key === 'i') countIncorrect();
      else if (key === 's') countSkip();
      else if (key === 'z') undoCount();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
}

type Notice = { tone: 'success' | 'info' | 'error'; text: string; keptAnswers?: boolean };

/** What the last Finish did (from this page or the phone), in words. */
function finishNotice(outcome: FinishOutcome): Notice {
  if ('failed' in outcome)
    // The timer is reset only once the session is kept, so Finish can be pressed again.
    return { tone: 'error', text: `${NOT_SAVED_TEXT} The timer keeps your session.` };
  const { result } = outcome;
  if (result.recorded)
    return { tone: 'success', text: `Saved ${minutesText(result.minutes)} of focus. It is in your stats.` };
  if (result.kept === 0)
    return { tone: 'info', text: 'Not saved: a session needs at least a minute of focus. The timer is reset.' };
  return {
    tone: 'info',
    text:
      `Not saved as a session: a session needs at least a minute of focus. Your ${plural(result.kept, 'answer')} ` +
      'stay on the counters and are saved with your next session.',
    keptAnswers: true,
  };
}

export default function FocusPage() {
  useShortcuts();
  const now = useNow();
  const [finishing, setFinishing] = useState(false);
  const state = advance(timer.value, now.value);
  const started = state.startedAtMs !== null;
  const focusedMinutes = Math.floor(focusedMs(state, now.value) / 60_000);

  // A finish's word belongs to the visit that saw it; answers kept for the next session stay
  // explained while they wait on the counters.
  useEffect(
    () => () => {
      const last = finishOutcome.peek();
      if (last && !('result' in last && !last.result.recorded && last.result.kept > 0)) finishOutcome.value = null;
    },
    [],
  );

  useEffect(() => {
    document.title = state.phase === 'idle' ? 'Focus · studyhall' : `${phaseLabel(state)} · studyhall`;
  }, [state.phase, state.cycle, state.running]);

  const finish = async () => {
    setFinishing(true);
    try {
      await finishAndTell();
    } finally {
      setFinishing(false);
    }
  };
  const outcome = finishOutcome.value;
  const notice = outcome && finishNotice(outcome);
  // A notice about answers kept for the next session ends once they are taken into one.
  const stale = notice?.keptAnswers === true && started;

  return (
    <div class="focus-page">
      <section class="focus-main" aria-labelledby="focus-phase">
        <div class="focus-toolbar">
          <h1 id="focus-phase" class={`phase-pill phase-${state.complete ? 'complete' : state.phase}`}>
            {phaseLabel(state)}
          </h1>
          <div class="row">
            <PhoneRemote />
            <PopOutButton />
          </div>
        </div>
        <TimeRing state={state} now={now.value} label={state.phase === 'break' ? 'Break' : 'Focus'} />
        <p class="focus-total muted tabular" aria-live="off">
          {started
            ? `${minutesText(focusedMinutes)} focused this session`
            : `${state.settings.cycles} × ${state.settings.focusMinutes} min focus, ${state.settings.breakMinutes} min breaks`}
        </p>
        <Pickers locked={false} />
        <div class="focus-controls">
          {state.complete ? null : state.running ? (
            <button
              type="button"
              class="button button-primary button-large"
              onClick={pauseTimer}
              aria-keyshortcuts="Space"
              title="Pause (Space)"
            >
              Pause
            </button>
          ) : (
            <button
              type="button"
              class="button button-primary button-large"
              onClick={() => {
                onStartGesture();
                startTimer();
              }}
              aria-keyshortcuts="Space"
              title={`${started ? 'Resume' : 'Start'} (Space)`}
            >
              {started ? 'Resume' : 'Start'}
            </button>
          )}
          <button
            type="button"
            class={`button button-large${state.complete ? ' button-primary' : ''}`}
            onClick={() => void finish()}
            disabled={!started || finishing}
          >
            Finish
          </button>
        </div>
        {notice && !stale && (
          <div
            class={`notice notice-${notice.tone === 'info' ? 'warning' : notice.tone}`}
            role={notice.tone === 'error' ? 'alert' : 'status'}
          >
            <p>{notice.text}</p>
            {notice.tone === 'success' && <a href="/stats">See stats</a>}
            {notice.keptAnswers && (
              <button type="button" class="button button-quiet" onClick={clearKeptAnswers}>
                Clear answers
              </button>
            )}
          </div>
        )}
        <Counters attempts={state.attempts} target={state.target} canUndo={state.history.length > 0} />
        <p class="shortcut-hint small muted">
          Keyboard: <kbd>Space</kbd> start or pause, <kbd>C</kbd> correct, <kbd>I</kbd> incorrect, <kbd>S</kbd> skip,{' '}
          <kbd>Z</kbd> undo
        </p>
      </section>
      <aside class="focus-side">
        <TasksPanel />
      </aside>
    </div>
  );
}
