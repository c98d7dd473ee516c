// The calm strip above every screen: a change this device could not keep, offline, a sign-in the
// server ended (with "Sign in again"), a waiting new version.
import { applyWaitingUpdate } from '../lib/service-worker.ts';
import { plural } from '../lib/format.ts';
import { SIGNED_OUT_TEXT } from '../lib/sync-status.ts';
import {
  online,
  saveFailure,
  sessionEnded,
  signInAgainOpen,
  syncLine,
  syncState,
  updateWaiting,
} from '../state/signals.ts';
import { flushNow } from '../state/sync.ts';
import { OfflineIcon, SyncIcon } from './icons.tsx';

export function Banners() {
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
      {(sessionEnded.value || sync.blockedBy === 'signed_out') && !line.offline && (
        <div class="banner banner-warning" data-testid="signed-out-banner">
          <SyncIcon />
          <p>
            <strong>{SIGNED_OUT_TEXT}.</strong>{' '}
            {sync.pending + sync.failed > 0
              ? `${plural(sync.pending + sync.failed, 'change')} made here ${sync.pending + sync.failed === 1 ? 'waits' : 'wait'} on this device and ${sync.pending + sync.failed === 1 ? 'is' : 'are'} sent once you do.`
              : 'Your data stays on this device; what you change waits here until you do.'}
          </p>
          <button type="button" class="button button-primary" onClick={() => (signInAgainOpen.value = true)}>
            Sign in again
          </button>
        </div>
      )}
    </div>
  );
}
