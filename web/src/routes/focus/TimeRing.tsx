// The remaining time in large tabular digits inside a ring drawn from completionAtMs.
import { clock } from '../../lib/format.ts';
import { progress, remainingMs, type TimerState } from '../../lib/timer.ts';

const RADIUS = 45;
const CIRCUMFERENCE = 2 * Math.PI * RADIUS;

export function TimeRing({ state, now, label }: { state: TimerState; now: number; label: string }) {
  const done = progress(state, now);
  const remaining = remainingMs(state, now);
  return (
    <div class={`ring ring-${state.phase}${state.running ? ' is-running' : ''}`}>
      <svg viewBox="0 0 100 100" aria-hidden="true" focusable="false">
        <circle class="ring-track" cx="50" cy="50" r={RADIUS} />
        <circle
          class="ring-fill"
          cx="50"
          cy="50"
          r={RADIUS}
          stroke-dasharray={CIRCUMFERENCE}
          stroke-dashoffset={CIRCUMFERENCE * (1 - done)}
        />
      </svg>
      <div class="ring-center">
        <p class="ring-time tabular" role="timer" aria-label={`${label}: ${clock(remaining)} remaining`}>
          {clock(remaining)}
        </p>
        <p class="ring-label">{label}</p>
      </div>
    </div>
  );
}
