// The bell on a buddy card or a group page: "tell me when they start studying". Pressed means on.
// Turning one on when this device does not receive notifications yet says so, with the way to fix it.
import { useState } from 'preact/hooks';
import { setAlert, type AlertTarget } from '../../lib/community/alerts.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import { BellIcon, BellOffIcon } from './icons.tsx';

export function AlertBell({
  type,
  id,
  name,
  enabled,
  onChanged,
  compact = false,
}: {
  type: AlertTarget;
  id: string;
  name: string;
  enabled: boolean;
  onChanged: (enabled: boolean) => void;
  compact?: boolean;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      await setAlert(type, id, !enabled);
      onChanged(!enabled);
    } catch (failure) {
      setError(describeCommunityError(failure));
    } finally {
      setBusy(false);
    }
  };
  const label =
    type === 'buddy' ? `Alert me when ${name} starts studying` : `Alert me when someone in ${name} starts studying`;
  return (
    <span class="alert-bell">
      <button
        type="button"
        class={`button ${compact ? 'button-quiet icon-button' : ''} bell${enabled ? ' is-on' : ''}`}
        aria-pressed={enabled}
        aria-label={compact ? label : undefined}
        title={label}
        disabled={busy}
        onClick={() => void toggle()}
      >
        {enabled ? <BellIcon size={18} /> : <BellOffIcon size={18} />}
        {!compact && <span>Start alerts</span>}
      </button>
      {error && (
        <span class="field-error" role="alert">
          {error}
        </span>
      )}
    </span>
  );
}
