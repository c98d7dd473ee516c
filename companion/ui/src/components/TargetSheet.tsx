// Sets the focus page's target: a whole number from 1 to 10000, typed or stepped.
import { useEffect, useState } from 'preact/hooks';
import { MAX_TARGET } from '../../../core/actions.ts';
import type { Companion } from '../state/companion.ts';
import { Sheet } from './Sheet.tsx';

const PRESETS = [10, 20, 30, 50];

export function TargetSheet({
  companion,
  open,
  onClose,
}: {
  companion: Companion;
  open: boolean;
  onClose: () => void;
}) {
  const current = companion.snapshot.value?.target ?? 20;
  const [value, setValue] = useState(String(current));
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (open) {
      setValue(String(current));
      setError(undefined);
    }
  }, [open]);

  const number = Number(value);
  const step = (delta: number) =>
    setValue(String(Math.min(MAX_TARGET, Math.max(1, (Number.isFinite(number) ? Math.round(number) : 0) + delta))));

  async function submit(event: Event) {
    event.preventDefault();
    if (!Number.isInteger(number) || number < 1 || number > MAX_TARGET) {
      setError(`A target is a whole number from 1 to ${MAX_TARGET}.`);
      return;
    }
    setError(undefined);
    await companion.sendAction('target', number);
    onClose();
  }

  return (
    <Sheet id="target" title="Target" open={open} onClose={onClose}>
      <form class="sheet-form" onSubmit={submit} noValidate>
        <p class="field-help">How many attempts the focus page counts toward in this session.</p>
        <div class="stepper">
          <button type="button" class="stepper-button" aria-label="One less" onClick={() => step(-1)}>
            −
          </button>
          <input
            class="input stepper-input"
            type="text"
            inputMode="numeric"
            pattern="[0-9]*"
            aria-label="Target attempts"
            aria-invalid={error ? 'true' : 'false'}
            aria-describedby={error ? 'target-error' : undefined}
            value={value}
            onInput={(event) => setValue((event.target as HTMLInputElement).value.trim())}
          />
          <button type="button" class="stepper-button" aria-label="One more" onClick={() => step(1)}>
            +
          </button>
        </div>
        {error ? (
          <p class="field-error" id="target-error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="presets">
          {PRESETS.map((preset) => (
            <button
              type="button"
              key={preset}
              class={`chip${number === preset ? ' chip--on' : ''}`}
              onClick={() => setValue(String(preset))}
            >
              {preset}
            </button>
          ))}
        </div>
        <button type="submit" class="button button--primary button--wide">
          Set target
        </button>
      </form>
    </Sheet>
  );
}
