// The update of this studyhall installation: the running version, "Check for updates", and
// "Update now". The controls and the latest change belong to the server's owner (this computer, or
// an admin session): the page asks the server (/api/update-capabilities) and shows them only when
// it says this caller may update; everyone else sees the version. Local changes in the checkout are
// listed and stashed only after the owner agrees. After the server accepted, the page waits for the
// new version to answer, then reloads.
import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { ApiError, describeError, requestJson } from '../../lib/api.ts';
import { plural } from '../../lib/format.ts';

interface Version {
  version: string;
  git_sha: string | null;
  commit_message: string | null;
}

interface UpdateCapabilities {
  can_update: boolean;
  admin_available: boolean;
}

interface UpdateCheck {
  update_available: boolean;
  behind: number;
  branch: string;
  remote: string;
  remote_head: { sha: string; version: string | null };
}

type Phase =
  | { kind: 'idle' }
  | { kind: 'checking' }
  | { kind: 'checked'; check: UpdateCheck }
  | { kind: 'confirm'; files: string[] }
  | { kind: 'starting' }
  | { kind: 'waiting'; fromSha: string | null; since: number }
  | { kind: 'error'; text: string };

const POLL_MS = 2000;
const GIVE_UP_MS = 10 * 60_000;

export function UpdateSection() {
  const [version, setVersion] = useState<Version | null>(null);
  const [versionProblem, setVersionProblem] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: 'idle' });
  // Unknown until the server answers; a failed answer shows no controls.
  const [capabilities, setCapabilities] = useState<UpdateCapabilities | null>(null);

  useEffect(() => {
    requestJson<Version>('/api/version').then(setVersion, () => setVersionProblem(true));
    requestJson<UpdateCapabilities>('/api/update-capabilities').then(setCapabilities, () =>
      setCapabilities({ can_update: false, admin_available: false }),
    );
  }, []);
  const owner = capabilities?.can_update === true;

  // After 202: poll /api/version until the SHA changes, then reload into the new build.
  useEffect(() => {
    if (phase.kind !== 'waiting') return;
    const timer = setInterval(() => {
      requestJson<Version>('/api/version').then(
        (next) => {
          if (next.git_sha !== phase.fromSha) location.reload();
        },
        () => undefined, // restarting: keep waiting
      );
      if (Date.now() - phase.since > GIVE_UP_MS) {
        setPhase({
          kind: 'error',
          text: "The update is taking longer than ten minutes. Check update.log in the server's log folder.",
        });
      }
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [phase]);

  const check = async () => {
    setPhase({ kind: 'checking' });
    try {
      setPhase({ kind: 'checked', check: await requestJson<UpdateCheck>('/api/check-update') });
    } catch (error) {
      setPhase({
        kind: 'error',
        text:
          error instanceof ApiError && error.code === 'remote_unreachable'
            ? 'The update source cannot be reached. Check the internet connection of the computer running studyhall.'
            : describeError(error),
      });
    }
  };

  const updateNow = async (confirm: boolean) => {
    setPhase({ kind: 'starting' });
    try {
      const answer = await requestJson<{ from_sha: string | null }>(`/api/update-now${confirm ? '?confirm=1' : ''}`, {
        method: 'POST',
      });
      setPhase({ kind: 'waiting', fromSha: answer.from_sha ?? version?.git_sha ?? null, since: Date.now() });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'confirmation_required') {
        let files = Array.isArray(error.details.dirty_files) ? (error.details.dirty_files as string[]) : [];
        try {
          files = (await requestJson<{ dirty_files: string[] }>('/api/update-status')).dirty_files;
        } catch {
          // the refusal already named them
        }
        setPhase({ kind: 'confirm', files });
      } else if (error instanceof ApiError && error.status === 403) {
        setPhase({
          kind: 'error',
          text: error.details.admin_available
            ? 'Updates start from the computer running studyhall, or with an admin session. Unlock admin mode, or open studyhall on that computer.'
            : 'Updates start from the computer running studyhall. Open studyhall there (http://127.0.0.1) and update from its Settings.',
        });
      } else if (error instanceof ApiError && error.code === 'update_in_progress') {
        setPhase({ kind: 'waiting', fromSha: version?.git_sha ?? null, since: Date.now() });
      } else {
        setPhase({ kind: 'error', text: describeError(error) });
      }
    }
  };

  return (
    <TitledSection class="card stack" titleId="update-title" title="Updates">
      {versionProblem ? (
        <p class="muted">The running version cannot be read while the server is unreachable.</p>
      ) : version ? (
        <dl class="facts">
          <dt>Version</dt>
          <dd data-testid="app-version">{version.version}</dd>
          <dt>Build</dt>
          <dd class="tabular">{version.git_sha ? version.git_sha.slice(0, 12) : 'not a git checkout'}</dd>
          {owner && version.commit_message && (
            <>
              <dt>Latest change</dt>
              <dd>{version.commit_message}</dd>
            </>
          )}
        </dl>
      ) : (
        <div class="skeleton-block">
          <div class="skeleton skeleton-line" />
          <div class="skeleton skeleton-line skeleton-short" />
        </div>
      )}
      <div class="live" aria-live="polite">
        {phase.kind === 'checked' && (
          <p class={phase.check.update_available ? '' : 'muted'}>
            {phase.check.update_available
              ? `An update is available: ${plural(phase.check.behind, 'new change')} on ${phase.check.remote}/${phase.check.branch}${phase.check.remote_head.version ? ` (version ${phase.check.remote_head.version})` : ''}.`
              : 'studyhall is up to date.'}
          </p>
        )}
        {phase.kind === 'starting' && <p>Starting the update…</p>}
        {phase.kind === 'waiting' && <p>Updating. This page reloads by itself when the new version is running.</p>}
        {phase.kind === 'error' && (
          <div class="notice notice-error" role="alert">
            <p>{phase.text}</p>
          </div>
        )}
      </div>
      {capabilities && !owner && (
        <p class="small muted">
          {capabilities.admin_available
            ? 'Updates are started on the computer running studyhall, or with its admin session.'
            : 'Updates are started on the computer running studyhall.'}
        </p>
      )}
      {owner && (
        <div class="row">
          <button
            type="button"
            class="button"
            onClick={() => void check()}
            disabled={phase.kind === 'checking' || phase.kind === 'waiting'}
          >
            {phase.kind === 'checking' ? 'Checking…' : 'Check for updates'}
          </button>
          <button
            type="button"
            class="button button-primary"
            onClick={() => void updateNow(false)}
            disabled={phase.kind === 'starting' || phase.kind === 'waiting'}
          >
            Update now
          </button>
        </div>
      )}
      <Dialog
        open={phase.kind === 'confirm'}
        wide
        title="Update with local changes?"
        onClose={() => setPhase({ kind: 'idle' })}
        actions={
          <>
            <button type="button" class="button" onClick={() => setPhase({ kind: 'idle' })}>
              Cancel
            </button>
            <button type="button" class="button button-primary" onClick={() => void updateNow(true)}>
              Keep my changes aside and update
            </button>
          </>
        }
      >
        <p>
          The studyhall folder on this computer has{' '}
          {phase.kind === 'confirm' ? plural(phase.files.length, 'changed file') : 'changed files'}. The update puts
          them aside in a git stash (nothing is deleted) and then installs the new version.
        </p>
        {phase.kind === 'confirm' && (
          <ul class="file-list" aria-label="Changed files">
            {phase.files.map((file) => (
              <li key={file}>{file}</li>
            ))}
          </ul>
        )}
      </Dialog>
    </TitledSection>
  );
}
