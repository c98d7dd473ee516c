// The three counters, and two rows of quieter buttons: the timer's (Start for an idle page, Pause
// while a phase runs, Resume while one is paused; Finish once a session has started) and the
// answers' (Undo; Target opens a small sheet for the number). The counters carry their current
// number (it bumps for 150 ms when the focus page reports a change, so the student sees the remote
// worked).
import type { ComponentChildren } from 'preact';
import type { PipActionName } from '../../../core/actions.ts';
import { canFinish, isSessionComplete } from '../../../core/snapshot.ts';
import type { Companion } from '../state/companion.ts';
import { CheckIcon, CrossIcon, FinishIcon, PauseIcon, PlayIcon, SkipIcon, TargetIcon, UndoIcon } from './icons.tsx';

/** Which timer action the page's state offers (none before any focus page reported, nor for a complete session). */
function timerAction(companion: Companion): { action: 'start' | 'pause' | 'resume'; label: string } | undefined {
  const snapshot = companion.snapshot.value;
  if (!snapshot || snapshot.updatedAt === null || isSessionComplete(snapshot)) return undefined;
  if (snapshot.phase === 'idle') return { action: 'start', label: 'Start' };
  return snapshot.running ? { action: 'pause', label: 'Pause' } : { action: 'resume', label: 'Resume' };
}

interface PadButtonProps {
  companion: Companion;
  action: PipActionName;
  label: string;
  icon: ComponentChildren;
  count?: number | undefined;
  variant: string;
  onPress: () => void;
  disabled: boolean;
}

function PadButton({ companion, action, label, icon, count, variant, onPress, disabled }: PadButtonProps) {
  const countId = `count-${action}`;
  return (
    <button
      type="button"
      class={`pad pad--${variant}`}
      aria-label={label}
      aria-describedby={count === undefined ? undefined : countId}
      aria-busy={companion.sending.value === action}
      disabled={disabled}
      onClick={onPress}
    >
      <span class="pad-icon">{icon}</span>
      {count === undefined ? null : (
        <span class="pad-count" id={countId} key={count}>
          {count}
        </span>
      )}
      <span class="pad-label" aria-hidden="true">
        {label}
      </span>
    </button>
  );
}

export function ActionPad({ companion, onTarget }: { companion: Companion; onTarget: () => void }) {
  const snapshot = companion.snapshot.value;
  const attempts = snapshot?.attempts;
  const disabled = companion.needsPairing.value;
  const send = (action: PipActionName) => () => void companion.sendAction(action);
  return (
    <div class="pad-area">
      <div class="pad-grid">
        <PadButton
          companion={companion}
          action="correct"
          label="Correct"
          icon={<CheckIcon />}
          count={attempts?.correct}
          variant="correct"
          onPress={send('correct')}
          disabled={disabled}
        />
        <PadButton
          companion={companion}
          action="incorrect"
          label="Incorrect"
          icon={<CrossIcon />}
          count={attempts?.incorrect}
          variant="incorrect"
          onPress={send('incorrect')}
          disabled={disabled}
        />
        <PadButton
          companion={companion}
          action="skip"
          label="Skip"
          icon={<SkipIcon />}
          count={attempts?.skipped}
          variant="skip"
          onPress={send('skip')}
          disabled={disabled}
        />
      </div>
      <div class="pad-row" role="group" aria-label="Timer">
        {(() => {
          const run = timerAction(companion);
          return (
            <PadButton
              companion={companion}
              action={run?.action ?? 'start'}
              label={run?.label ?? 'Start'}
              icon={run?.action === 'pause' ? <PauseIcon /> : <PlayIcon />}
              variant="quiet"
              onPress={send(run?.action ?? 'start')}
              disabled={disabled || !run}
            />
          );
        })()}
        <PadButton
          companion={companion}
          action="finish"
          label="Finish"
          icon={<FinishIcon />}
          variant="quiet"
          onPress={send('finish')}
          disabled={disabled || !canFinish(snapshot)}
        />
      </div>
      <div class="pad-row" role="group" aria-label="Answers">
        <PadButton
          companion={companion}
          action="undo"
          label="Undo"
          icon={<UndoIcon />}
          variant="quiet"
          onPress={send('undo')}
          disabled={disabled}
        />
        <button
          type="button"
          class="pad pad--quiet pad--target"
          aria-label="Target"
          aria-describedby="target-value"
          disabled={disabled}
          onClick={onTarget}
        >
          <span class="pad-icon">
            <TargetIcon />
          </span>
          <span class="pad-label" aria-hidden="true">
            Target
          </span>
          <span class="pad-target" id="target-value">
            {snapshot?.target ? snapshot.target : 'none'}
          </span>
        </button>
      </div>
    </div>
  );
}
