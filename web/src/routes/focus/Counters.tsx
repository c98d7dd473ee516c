// The attempt counters: big buttons with their number on them, Undo quieter beside them, and the
// target. A change made by the phone or the Pop-out flashes its number briefly.
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { CheckIcon, CrossIcon, SkipIcon, UndoIcon } from '../../components/icons.tsx';
import { TextField } from '../../components/TextField.tsx';
import { attemptsTotal, type Attempts } from '../../lib/timer.ts';
import { changeTarget, countCorrect, countIncorrect, countSkip, undoCount } from '../../state/focus.ts';
import { remoteBump } from '../../state/signals.ts';

type Key = 'correct' | 'incorrect' | 'skipped' | 'target';

function useFlash(key: Key): boolean {
  const bump = remoteBump.value;
  const [flash, setFlash] = useState(false);
  useEffect(() => {
    if (!bump || bump.key !== key) return;
    setFlash(true);
    const timer = setTimeout(() => setFlash(false), 400);
    return () => clearTimeout(timer);
  }, [bump, key]);
  return flash;
}

/** The three attempt counters: the count each shows, its name, its key, what a press counts, its icon. */
const COUNTERS: {
  kind: keyof Attempts;
  label: string;
  shortcut: string;
  count: () => void;
  Icon: typeof CheckIcon;
}[] = [
  { kind: 'correct', label: 'Correct', shortcut: 'C', count: countCorrect, Icon: CheckIcon },
  { kind: 'incorrect', label: 'Incorrect', shortcut: 'I', count: countIncorrect, Icon: CrossIcon },
  { kind: 'skipped', label: 'Skip', shortcut: 'S', count: countSkip, Icon: SkipIcon },
];

function Counter({
  kind,
  label,
  value,
  shortcut,
  onClick,
  icon,
}: {
  kind: Key;
  label: string;
  value: number;
  shortcut: string;
  onClick: () => void;
  icon: JSX.Element;
}) {
  const flash = useFlash(kind);
  return (
    <button
      type="button"
      class={`counter counter-${kind}${flash ? ' is-flashing' : ''}`}
      onClick={onClick}
      aria-label={label}
      aria-describedby={`count-${kind}`}
      aria-keyshortcuts={shortcut}
      title={`${label} (${shortcut})`}
    >
      <span class="counter-value tabular" id={`count-${kind}`}>
        {value}
      </span>
      <span class="counter-label">
        {icon}
        {label}
      </span>
    </button>
  );
}

function TargetEditor({ target, answered }: { target: number | null; answered: number }) {
  const flash = useFlash('target');
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(target ? String(target) : '');
  const [problem, setProblem] = useState<string | null>(null);
  if (editing) {
    const save = (event: Event) => {
      event.preventDefault();
      if (draft.trim() === '') {
        changeTarget(null);
        setEditing(false);
        return;
      }
      const value = Number(draft);
      if (!Number.isInteger(value) || value < 1 || value > 10_000) {
        setProblem('Enter a whole number from 1 to 10000, or leave it empty for no target.');
        return;
      }
      changeTarget(value);
      setProblem(null);
      setEditing(false);
    };
    return (
      <form class="target-form" onSubmit={save}>
        <TextField
          id="target-input"
          label="Target"
          inputClass="input-number"
          inputMode="numeric"
          value={draft}
          onValue={setDraft}
          error={problem}
          errorId="target-error"
        />
        <button type="submit" class="button">
          Set
        </button>
        <button type="button" class="button button-quiet" onClick={() => setEditing(false)}>
          Cancel
        </button>
      </form>
    );
  }
  return (
    <div class={`target${flash ? ' is-flashing' : ''}`}>
      <button
        type="button"
        class="button button-quiet"
        onClick={() => {
          setDraft(target ? String(target) : '');
          setEditing(true);
        }}
        aria-describedby="target-value"
        title="Set how many questions this session aims for"
      >
        Target
      </button>
      {target ? (
        <div class="target-progress">
          <div class="target-bar" aria-hidden="true">
            <span style={{ width: `${Math.min(100, (answered / target) * 100)}%` }} />
          </div>
          <p id="target-value" class="tabular">
            <strong>{answered}</strong> of {target} answered
          </p>
        </div>
      ) : (
        <p id="target-value" class="muted">
          None set
        </p>
      )}
    </div>
  );
}

export function Counters({
  attempts,
  target,
  canUndo,
}: {
  attempts: Attempts;
  target: number | null;
  canUndo: boolean;
}) {
  return (
    <section class="counters-area" aria-label="Attempts">
      <div class="counters">
        {COUNTERS.map(({ kind, label, shortcut, count, Icon }) => (
          <Counter
            key={kind}
            kind={kind}
            label={label}
            value={attempts[kind]}
            shortcut={shortcut}
            onClick={count}
            icon={<Icon size={18} />}
          />
        ))}
      </div>
      <div class="counters-foot">
        <button
          type="button"
          class="button button-quiet"
          onClick={undoCount}
          disabled={!canUndo}
          aria-keyshortcuts="Z"
          title="Undo the last count (Z)"
        >
          <UndoIcon size={18} />
          Undo
        </button>
        <TargetEditor target={target} answered={attemptsTotal(attempts)} />
      </div>
    </section>
  );
}
