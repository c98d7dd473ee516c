import type { TimerState } from '../../lib/timer.ts';

export function phaseLabel(state: TimerState): string {
  if (state.complete) return 'Session complete';
  if (state.phase === 'idle') return 'Ready to focus';
  const cycle = `${state.cycle} of ${state.settings.cycles}`;
  if (state.phase === 'break') return `Break · after focus ${cycle}`;
  return `Focus · ${cycle}${state.running ? '' : ' · paused'}`;
}
