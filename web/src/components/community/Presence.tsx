// Presence as a coloured dot plus a word (never colour alone), and the lock that marks what a
// student keeps to themselves ("not shared" looks different from "nothing yet today").
import type { PresenceState } from '#contracts/community-rows.ts';
import { LockIcon } from './icons.tsx';

export const PRESENCE_WORD: Record<PresenceState, string> = {
  studying: 'Studying',
  break: 'On a break',
  idle: 'Paused',
  offline: 'Offline',
};

export function PresenceBadge({ state }: { state: PresenceState }) {
  return (
    <span class={`presence presence-${state}`}>
      <span class="presence-dot" aria-hidden="true" />
      {PRESENCE_WORD[state]}
    </span>
  );
}

export function NotShared({ what }: { what?: string }) {
  return (
    <span class="badge not-shared" title={what ? `${what} not shared` : 'Not shared'}>
      <LockIcon size={14} />
      {what ? (
        <span>
          <span class="visually-hidden">{what}: </span>not shared
        </span>
      ) : (
        'not shared'
      )}
    </span>
  );
}
