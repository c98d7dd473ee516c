// The one-glance face: phase, the remaining time in large tabular digits, when it ends, the
// subject and task. Every waiting state says what the student can do.
import type { Ref } from 'preact';
import { isSessionComplete } from '../../../core/snapshot.ts';
import type { Companion } from '../state/companion.ts';

function phaseLabel(companion: Companion): { text: string; tone: 'focus' | 'break' | 'paused' | 'idle' } {
  const snapshot = companion.snapshot.value;
  if (isSessionComplete(snapshot)) return { text: 'Session complete', tone: 'idle' };
  if (!snapshot || snapshot.phase === 'idle') return { text: 'No session', tone: 'idle' };
  if (!snapshot.running)
    return { text: snapshot.phase === 'focus' ? 'Focus · paused' : 'Break · paused', tone: 'paused' };
  return snapshot.phase === 'focus' ? { text: 'Focus', tone: 'focus' } : { text: 'Break', tone: 'break' };
}

function endsAt(completionAtMs: number): string {
  return new Date(completionAtMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

export function TimerFace({ companion, timeRef }: { companion: Companion; timeRef?: Ref<HTMLDivElement> }) {
  const snapshot = companion.snapshot.value;
  if (!snapshot) {
    return (
      <section class="face" aria-busy="true" aria-label="Timer">
        <span class="phase phase--idle skeleton">Connecting</span>
        <div class="time time--placeholder" ref={timeRef}>
          --:--
        </div>
        <p class="face-hint">Asking {companion.settings.value?.serverUrl ?? 'the server'} for the timer…</p>
      </section>
    );
  }
  const phase = phaseLabel(companion);
  const idle = snapshot.phase === 'idle';
  const neverReported = snapshot.updatedAt === null;
  const ended = companion.endShown.value;
  return (
    <section class="face" aria-label="Timer">
      <span class={`phase phase--${phase.tone}`}>{phase.text}</span>
      {ended ? (
        <p class={`phase-end phase-end--${ended.phase}`} role="alert">
          {ended.phase === 'focus' ? 'Focus phase over' : 'Break over'}
        </p>
      ) : null}
      <div
        class={`time${idle ? ' time--idle' : ''}`}
        role="timer"
        aria-label={`Time left ${companion.displayTime.value ?? ''}`}
        ref={timeRef}
      >
        {idle ? '--:--' : companion.displayTime.value}
      </div>
      {snapshot.running && snapshot.completionAtMs !== null && !idle ? (
        <p class="ends">Ends at {endsAt(snapshot.completionAtMs)}</p>
      ) : (
        <p class="ends ends--empty" aria-hidden="true">
          &nbsp;
        </p>
      )}
      {idle ? (
        <p class="face-hint">
          {neverReported
            ? 'No focus page has reported yet. Open Focus in studyhall on your computer.'
            : isSessionComplete(snapshot)
              ? 'Every focus phase is over. Finish saves the session on the focus page.'
              : 'Start a session here or on the focus page. This phone starts, pauses, resumes and finishes it, and counts your answers.'}
        </p>
      ) : (
        <div class="subject">
          <p class="subject-name">{snapshot.subject?.name ?? 'No subject'}</p>
          {snapshot.task ? <p class="subject-task">{snapshot.task.title}</p> : null}
        </div>
      )}
    </section>
  );
}
