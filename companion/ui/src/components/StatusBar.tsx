// The top bar: the name, the connection state (a calm offline badge while the server cannot be
// reached, cleared on the first good answer) and the settings button.
import type { Companion } from '../state/companion.ts';
import { CloudOffIcon, GearIcon } from './icons.tsx';

function retryText(companion: Companion): string {
  const due = companion.poll.value.nextPollAt;
  if (due === undefined) return '';
  const seconds = Math.max(0, Math.ceil((due - companion.now.value) / 1000));
  return seconds > 0 ? `retrying in ${seconds} s` : 'retrying…';
}

export function OfflineBadge({ companion }: { companion: Companion }) {
  if (!companion.poll.value.offline) return null;
  return (
    <span class="offline-badge" role="status" title={companion.poll.value.problem?.message}>
      <CloudOffIcon />
      <span class="offline-badge-text">Offline</span>
      <span class="offline-badge-retry">{retryText(companion)}</span>
    </span>
  );
}

export function StatusBar({ companion, onSettings }: { companion: Companion; onSettings: () => void }) {
  return (
    <header class="topbar">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        <span>studyhall</span>
      </div>
      <OfflineBadge companion={companion} />
      <button type="button" class="icon-button" aria-label="Settings" onClick={onSettings}>
        <GearIcon />
      </button>
    </header>
  );
}
