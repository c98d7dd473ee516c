// The calm strip above every screen: a change this device could not keep, offline, a waiting new
// version, changes that cannot sync.
import { applyWaitingUpdate } from '../lib/service-worker.ts';
import { plural } from '../lib/format.ts';
import { online, saveFailure, syncLine, syncState, updateWaiting } from '../state/signals.ts';
import { flushNow } from '../state/sync.ts';
import { OfflineIcon, SyncIcon } from './icons.tsx';

export function Banners({ onSignInAgain }: { onSignInAgain: () => void }) {
  const line = syncLine.value;
  const sync = syncState.value;
  const failure = saveFailure.value;
  return (
    <div class="banners">
      {/* Not live regions of their own: the sync line (role="status") already says what they are about. */}
      {failure && (
        <div class="banner banner-danger" data-testid="not-saved-banner">
          <SyncIcon />
          <p>
            <strong>Not saved on this device: {failure.what}.</strong> Try again; if it keeps failing, reload the page.{' '}
            <span class="banner-detail">The browser said: {failure.reason}</span>
          </p>
        </div>
      )}
      {line.offline && (
        <div class="banner banner-offline" data-testid="offline-banner">
          <OfflineIcon />
          <p>
            <strong>{line.tone === 'offline' ? line.text : 'Offline'}.</strong>{' '}
            {online.value ? 'The server is not answering.' : 'This device has no network.'} The timer and your data keep
            working on this device{sync.pending > 0 ? ', and the changes are sent when it is back' : ''}.
          </p>
          {online.value && (
            <button type="button" class="button button-quiet" onClick={() => void flushNow()}>
              Try again
            </button>
          )}
        </div>
      )}
      {updateWaiting.value && (
        <div class="banner banner-info" role="status">
          <p>
            <strong>New version.</strong> Reload to use it; your timer keeps running.
          </p>
          <button type="button" class="button button-primary" onClick={applyWaitingUpdate}>
            Reload
          </button>
        </div>
      )}
      {sync.blockedBy === 'signed_out' && (
        <div class="banner banner-warning" role="alert">
          <SyncIcon />
          <p>
            <strong>Sign in again to sync.</strong> {plural(sync.pending, 'change')} will stay on this device until you
            do.
          </p>
          <button type="button" class="button button-primary" onClick={onSignInAgain}>
            Sign in again
          </button>
        </div>
      )}
    </div>
  );
}
