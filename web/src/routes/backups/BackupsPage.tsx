// /backups: cloud snapshots (automatic and on demand), restoring one (the newest, or the one
// holding the most records, both shown with what they hold), exporting to and importing from a
// JSON file (validated and previewed before it replaces anything), and the changes still waiting
// to sync.
import { useEffect, useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { Dialog } from '../../components/Dialog.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { DownloadIcon, UploadIcon } from '../../components/icons.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { describeError } from '../../lib/api.ts';
import { parseBackupText } from '../../lib/backup-import.ts';
import { summarizePayload, type BackupPayload, type BackupSummaryCounts } from '../../lib/backup-payload.ts';
import { dateTime, plural, relativeTime } from '../../lib/format.ts';
import type { OutboxEntry } from '../../lib/outbox.ts';
import { currentPayload, lastSnapshotAt, snapshotNow, snapshotState } from '../../state/backups.ts';
import { SIGNED_OUT_TEXT } from '../../lib/sync-status.ts';
import { sessionEnded, sessions, subjects, syncState, tasks } from '../../state/signals.ts';
import { discardEntry, refreshSyncCounts, retryEntry } from '../../state/sync.ts';
import { BackupPreview } from './BackupPreview.tsx';
import { readBackupChoice } from '../../state/restore-offer.ts';
import { importBackup, restoreStoredBackup } from './restore.ts';
import '../../styles/backups.css';

interface CloudBackup {
  role: 'newest' | 'richest';
  counts: BackupSummaryCounts;
  when: string;
  source: string;
  payload: Record<string, unknown>;
}

type Pending =
  | { kind: 'cloud'; backups: CloudBackup[] }
  | { kind: 'file'; counts: BackupSummaryCounts; payload: BackupPayload; name: string };

const CLOUD_TITLES: Record<CloudBackup['role'], string> = {
  newest: 'Your newest backup',
  richest: 'The backup with the most records',
};
const CLOUD_ACTIONS: Record<CloudBackup['role'], string> = {
  newest: 'Replace with the newest backup',
  richest: 'Replace with the backup with the most records',
};

function describeEntry(entry: OutboxEntry): string {
  switch (entry.op.kind) {
    case 'session':
      return `Session of ${entry.op.session.minutes} min${entry.op.session.subjectName ? ` (${entry.op.session.subjectName})` : ''}`;
    case 'task-upsert':
      return `Task "${entry.op.task.title}"`;
    case 'task-delete':
      return 'Deleted task';
    case 'subject-upsert':
      return `Subject "${entry.op.subject.name}"`;
    case 'subject-delete':
      return 'Deleted subject';
    case 'settings':
      return 'Study day settings';
    case 'timer-settings':
      return 'Timer settings';
  }
}

function CloudSection({ onRestore }: { onRestore: (pending: Pending) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const backUp = async () => {
    setProblem(null);
    try {
      await snapshotNow();
    } catch (error) {
      setProblem(describeError(error));
    }
  };
  const lookForBackup = async () => {
    setProblem(null);
    setChecking(true);
    try {
      const choice = await readBackupChoice();
      if (!choice) return setProblem('This account has no backup yet. Back up now to make one.');
      const backups = [
        { role: 'newest' as const, backup: choice.newest },
        ...(choice.richest ? [{ role: 'richest' as const, backup: choice.richest }] : []),
      ];
      onRestore({
        kind: 'cloud',
        backups: backups.map(({ role, backup }) => ({
          role,
          counts: summarizePayload(backup.payload),
          when: dateTime(backup.created_at),
          source: backup.source,
          payload: backup.payload,
        })),
      });
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setChecking(false);
    }
  };
  const saving = snapshotState.value === 'saving';
  return (
    <TitledSection class="card stack" titleId="cloud-title" title="Cloud backup">
      <p class="muted">
        A snapshot of this device's data is stored on your studyhall server a few seconds after each change (at most
        every five minutes).
      </p>
      <p aria-live="polite" data-testid="last-backup">
        {saving
          ? 'Backing up…'
          : lastSnapshotAt.value
            ? `Last backup: ${relativeTime(lastSnapshotAt.value)}.`
            : 'No backup from this device yet.'}
      </p>
      {problem && (
        <div class="notice notice-error" role="alert">
          <p>{problem}</p>
        </div>
      )}
      <div class="row">
        <button type="button" class="button button-primary" onClick={() => void backUp()} disabled={saving}>
          Back up now
        </button>
        <button type="button" class="button" onClick={() => void lookForBackup()} disabled={checking}>
          {checking ? 'Looking…' : 'Restore a backup…'}
        </button>
      </div>
    </TitledSection>
  );
}

function FileSection({ onImport }: { onImport: (pending: Pending) => void }) {
  const [refusal, setRefusal] = useState<{ summary: string; problems: string[] } | null>(null);
  const exportFile = () => {
    const payload = currentPayload();
    const blob = new Blob([JSON.stringify(payload, null, 2)], { type: 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = document.createElement('a');
    link.href = url;
    link.download = `studyhall-backup-${payload.exported_at.slice(0, 10)}.json`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  const readFile = async (file: File | undefined) => {
    setRefusal(null);
    if (!file) return;
    if (file.size > 8 * 1024 * 1024)
      return setRefusal({ summary: 'This file is larger than 8 MB, the most the server accepts.', problems: [] });
    const parsed = parseBackupText(await file.text());
    if (!parsed.ok) return setRefusal(parsed);
    onImport({
      kind: 'file',
      counts: summarizePayload(parsed.payload as unknown as Record<string, unknown>),
      payload: parsed.payload,
      name: file.name,
    });
  };
  return (
    <TitledSection class="card stack" titleId="file-title" title="Backup file">
      <p class="muted">Keep a copy anywhere, or move your data to another server.</p>
      <div class="row">
        <button type="button" class="button" onClick={exportFile}>
          <DownloadIcon />
          Export to a file
        </button>
        <label class="button file-button">
          <UploadIcon />
          Import a file…
          <input
            type="file"
            accept="application/json,.json"
            class="visually-hidden"
            onChange={(event) => {
              void readFile(event.currentTarget.files?.[0]);
              event.currentTarget.value = '';
            }}
          />
        </label>
      </div>
      {refusal && (
        <div class="notice notice-error" role="alert">
          <div>
            <p>
              <strong>{refusal.summary}</strong> Nothing was changed.
            </p>
            {refusal.problems.length > 0 && (
              <details class="small">
                <summary>Details</summary>
                <ul class="problem-list">
                  {refusal.problems.map((problem) => (
                    <li key={problem}>{problem}</li>
                  ))}
                </ul>
              </details>
            )}
          </div>
        </div>
      )}
    </TitledSection>
  );
}

function WaitingSection() {
  const [entries, setEntries] = useState<OutboxEntry[] | null>(null);
  const { pending, failed, blockedBy } = syncState.value;
  // Waiting for her sign-in is not a refusal: nothing here is to retry or discard until she is back.
  const signedOut = sessionEnded.value || blockedBy === 'signed_out';
  useEffect(() => {
    void refreshSyncCounts().then(setEntries);
  }, [pending, failed]);
  return (
    <TitledSection class="card stack" titleId="waiting-title" title="Waiting to sync">
      {entries === null ? (
        <div class="skeleton skeleton-line" />
      ) : entries.length === 0 ? (
        <p class="muted">Nothing is waiting: every change on this device has reached the server.</p>
      ) : (
        <>
          {signedOut ? (
            <div class="notice notice-warning">
              <p>
                <strong>{SIGNED_OUT_TEXT}.</strong> These changes are kept on this device and sent once you do.
              </p>
            </div>
          ) : (
            <p class="muted">
              {entries.every((entry) => entry.failed)
                ? 'The server refused these changes. Retry one after fixing what it names, or discard it (it stays on this device either way).'
                : blockedBy === 'offline'
                  ? 'The server cannot be reached; these changes will sync when it can.'
                  : 'These changes are saved on this device and will sync.'}
            </p>
          )}
          <ul class="list">
            {entries.map((entry) => (
              <li key={entry.key} class="list-item">
                <div class="list-main">
                  <p class="list-title">{describeEntry(entry)}</p>
                  <p class="list-meta">
                    {entry.failed && signedOut
                      ? 'Set aside before; sent again once you sign in'
                      : entry.failed
                        ? `Refused by the server: ${entry.lastError ?? 'no reason given'}`
                        : signedOut
                          ? 'Waits for you to sign in again'
                          : entry.attempts > 0
                            ? `Tried ${plural(entry.attempts, 'time')}; will try again`
                            : 'Will sync'}
                  </p>
                </div>
                {entry.failed && !signedOut ? (
                  <div class="row">
                    <button type="button" class="button" onClick={() => void retryEntry(entry.key)}>
                      Retry
                    </button>
                    <button type="button" class="button button-quiet" onClick={() => void discardEntry(entry.key)}>
                      Discard
                    </button>
                  </div>
                ) : (
                  <span class="badge badge-warning">{signedOut ? 'waits for sign-in' : 'will sync'}</span>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
    </TitledSection>
  );
}

export default function BackupsPage() {
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  document.title = 'Backups · studyhall';
  const local = { subjects: subjects.value.length, tasks: tasks.value.length, sessions: sessions.value.length };

  const confirm = async (cloud?: CloudBackup) => {
    if (!pending) return;
    setBusy(true);
    setProblem(null);
    try {
      if (cloud) await restoreStoredBackup(cloud.payload);
      else if (pending.kind === 'file') await importBackup(pending.payload);
      setDone(
        pending.kind === 'cloud'
          ? 'The backup is restored on this device.'
          : `${pending.name} is imported and stored as a backup.`,
      );
      setPending(null);
    } catch (error) {
      setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="page">
      <div class="page-head">
        <div>
          <h1 class="page-title">Backups</h1>
          <p class="page-lead tabular">
            On this device: {plural(local.sessions, 'session')}, {plural(local.subjects, 'subject')},{' '}
            {plural(local.tasks, 'task')}.
          </p>
        </div>
      </div>
      {done && (
        <div class="notice notice-success" role="status">
          <p>{done}</p>
        </div>
      )}
      <CloudSection
        onRestore={(next) => {
          setDone(null);
          setPending(next);
        }}
      />
      <FileSection
        onImport={(next) => {
          setDone(null);
          setPending(next);
        }}
      />
      <WaitingSection />
      <Dialog
        open={pending !== null}
        wide
        title={pending?.kind === 'file' ? `Import ${pending.name}?` : 'Restore a backup?'}
        onClose={() => setPending(null)}
        actions={
          <>
            <button type="button" class="button" onClick={() => setPending(null)} disabled={busy}>
              Cancel
            </button>
            {pending?.kind === 'file' && (
              <BusyButton
                type="button"
                class="button button-danger"
                onClick={() => void confirm()}
                busy={busy}
                busyLabel="Replacing…"
              >
                Replace the data on this device
              </BusyButton>
            )}
          </>
        }
      >
        {pending?.kind === 'file' && <BackupPreview counts={pending.counts} />}
        {pending?.kind === 'cloud' && (
          <ul class="restore-offers">
            {pending.backups.map((backup) => (
              <li key={backup.role} class="restore-offer" aria-labelledby={`restore-${backup.role}`}>
                <h3 id={`restore-${backup.role}`} class="restore-offer-title">
                  {CLOUD_TITLES[backup.role]}
                </h3>
                <BackupPreview counts={backup.counts} when={backup.when} source={backup.source} />
                <button type="button" class="button button-danger" onClick={() => void confirm(backup)} disabled={busy}>
                  {CLOUD_ACTIONS[backup.role]}
                </button>
              </li>
            ))}
          </ul>
        )}
        <p>
          This replaces the {plural(local.sessions, 'session')}, {plural(local.subjects, 'subject')} and{' '}
          {plural(local.tasks, 'task')} on this device with the backup's. Sessions already on the server stay there and
          come back to this device.
        </p>
        <FieldError message={problem} />
      </Dialog>
    </div>
  );
}
