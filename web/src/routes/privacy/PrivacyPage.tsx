// /settings/privacy: taking part in the community, stealth mode and the six switches, each saved
// the moment it changes, each with a plain statement of who sees what; and a table of what buddies
// and group members see right now. The database applies these switches to every read. The page names
// only the leaderboards the app shows (each group's), and says who else may read the same points.
import { useState } from 'preact/hooks';
import type { Enrollment, PrivacyKey, PrivacySwitches } from '#contracts/community-rows.ts';
import { NotShared } from '../../components/community/Presence.tsx';
import { ErrorNotice } from '../../components/community/Notices.tsx';
import { Switch } from '../../components/community/Switch.tsx';
import { useLoad } from '../../components/community/useLoad.ts';
import { CheckIcon } from '../../components/icons.tsx';
import { PageSkeleton } from '../../components/Skeleton.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { readEnrollment, saveConsent, savePrivacy, SWITCHES } from '../../lib/community/privacy.ts';
import { consentStatement, stealthStatement, whoSeesWhat } from '../../lib/community/sharing.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import '../../styles/community/shared.css';
import '../../styles/community/privacy.css';

function Cell({ value }: { value: boolean | 'never' }) {
  if (value === true)
    return (
      <span class="sees">
        <CheckIcon size={16} />
        Sees it
      </span>
    );
  if (value === 'never')
    return (
      <span class="muted small" title="Never shown to them">
        —<span class="visually-hidden">never shown</span>
      </span>
    );
  return <NotShared />;
}

export default function PrivacyPage() {
  document.title = 'Privacy · studyhall';
  const loaded = useLoad(readEnrollment, []);
  const [saving, setSaving] = useState<string | null>(null);
  const [status, setStatus] = useState<string>('');
  const [error, setError] = useState<string | null>(null);

  const apply = async (label: string, optimistic: Enrollment, save: () => Promise<Enrollment>) => {
    const before = loaded.data;
    loaded.set(optimistic);
    setSaving(label);
    setError(null);
    setStatus('');
    try {
      loaded.set(await save());
      setStatus(`Saved: ${label}.`);
    } catch (failure) {
      if (before) loaded.set(before);
      setError(`${label} was not saved. ${describeCommunityError(failure)}`);
    } finally {
      setSaving(null);
    }
  };

  if (loaded.error && !loaded.data)
    return (
      <div class="page">
        <h1 class="page-title">Privacy</h1>
        <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />
      </div>
    );
  if (!loaded.data) return <PageSkeleton />;
  const enrollment = loaded.data;
  const toggle = (key: PrivacyKey, next: boolean) => {
    const label = SWITCHES.find((item) => item.key === key)?.label ?? key;
    const privacy: PrivacySwitches = { ...enrollment.privacy, [key]: next };
    void apply(`${label} ${next ? 'on' : 'off'}`, { ...enrollment, privacy }, () => savePrivacy(privacy));
  };

  return (
    <div class="page privacy-page">
      <div class="page-head">
        <div>
          <p class="small">
            <a href="/settings">Settings</a> <span aria-hidden="true">›</span> Privacy
          </p>
          <h1 class="page-title">Privacy</h1>
          <p class="page-lead">
            Who sees what of your studying. Every change is saved at once; the server applies it to everything others
            read.
          </p>
        </div>
      </div>
      <p class="visually-hidden" role="status" aria-live="polite">
        {status}
      </p>
      {error && (
        <div class="notice notice-error" role="alert">
          <p>{error}</p>
        </div>
      )}

      <section class="card stack" aria-labelledby="consent-title">
        <div class="switch-row">
          <div class="switch-text">
            <h2 id="consent-title" class="card-title">
              Take part in the community
            </h2>
            <p id="consent-statement">{consentStatement(enrollment)}</p>
            {enrollment.consent && enrollment.consented_at && (
              <p class="small muted">Agreed on {new Date(enrollment.consented_at).toLocaleDateString()}.</p>
            )}
          </div>
          <Switch
            id="consent"
            label="Take part in the community"
            checked={enrollment.consent}
            describedBy="consent-statement"
            disabled={saving !== null}
            onChange={(next) =>
              void apply(`Community sharing ${next ? 'on' : 'off'}`, { ...enrollment, consent: next }, () =>
                saveConsent(next),
              )
            }
          />
        </div>
      </section>

      <TitledSection class="card stack" titleId="switches-title" title="What you share">
        <ul class="switch-list">
          {SWITCHES.map((item) => {
            const on = enrollment.privacy[item.key];
            const overridden = enrollment.privacy.stealthMode ? item.stealthNote : undefined;
            return (
              <li key={item.key} class={`switch-row${item.key === 'stealthMode' ? ' is-stealth' : ''}`}>
                <div class="switch-text">
                  <h3 class="switch-label" id={`${item.key}-label`}>
                    {item.label}
                  </h3>
                  <p id={`${item.key}-statement`} class="small">
                    {item.key === 'stealthMode' ? stealthStatement(enrollment) : on ? item.on : item.off}
                  </p>
                  {overridden && on && <p class="small muted">{overridden}</p>}
                </div>
                <Switch
                  id={item.key}
                  label={item.label}
                  checked={on}
                  describedBy={`${item.key}-statement`}
                  disabled={saving !== null}
                  onChange={(next) => toggle(item.key, next)}
                />
              </li>
            );
          })}
        </ul>
      </TitledSection>

      <TitledSection class="card stack" titleId="summary-title" title="What others see right now">
        <table class="table who-sees">
          <thead>
            <tr>
              <th scope="col">About you</th>
              <th scope="col">Buddies</th>
              <th scope="col">Group members</th>
            </tr>
          </thead>
          <tbody>
            {whoSeesWhat(enrollment).map((row) => (
              <tr key={row.what}>
                <th scope="row">{row.what}</th>
                <td>
                  <Cell value={row.buddies} />
                </td>
                <td>
                  <Cell value={row.groups} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <p class="small muted">
          Always visible to your groups: your name, handle, picture and role. Your groups' leaderboards rank you by
          points (minutes plus correct answers) only while you share both your study time and your question counts, and
          never in stealth mode. While they do, other students signed in to this server can also read those points from
          the server, though the app shows them only on your groups' leaderboards. Strangers see nothing else.
        </p>
      </TitledSection>
    </div>
  );
}
