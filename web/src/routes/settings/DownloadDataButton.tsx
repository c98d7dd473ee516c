// "Download my data": everything the backend holds of her (export_my_data), saved as one JSON file.
import { useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { ResultNotice, type Result } from '../../components/ResultNotice.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { accountProblem } from '../../lib/account-words.ts';
import { exportMyData } from '../../state/account.ts';

function saveFile(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function DownloadDataButton() {
  const [result, setResult] = useState<Result | null>(null);
  const [busy, setBusy] = useState(false);

  const download = async () => {
    setResult(null);
    setBusy(true);
    try {
      const name = `studyhall-my-data-${new Date().toISOString().slice(0, 10)}.json`;
      saveFile(await exportMyData(), name);
      setResult({ tone: 'success', text: `Saved as ${name} in your downloads.` });
    } catch (error) {
      setResult({ tone: 'error', text: accountProblem(error) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <TitledSection class="stack account-part" titleId="data-title" title="Your data" kind="part">
      <p class="small muted">
        One JSON file with everything the server keeps about you: profile, settings, timer settings (as last backed up),
        sessions, tasks, backups, buddies, groups and messages.
      </p>
      <ResultNotice result={result} />
      <div class="row">
        <BusyButton
          type="button"
          class="button"
          onClick={() => void download()}
          busy={busy}
          busyLabel="Preparing your file…"
        >
          Download my data
        </BusyButton>
      </div>
    </TitledSection>
  );
}
