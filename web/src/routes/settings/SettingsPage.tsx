// /settings: the timer, the daily goal, the phase-end alarm, when a study day starts, subjects, updates, and the
// account (password, e-mail, her data, signing out, deleting it).
import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../../components/Dialog.tsx';
import { Field } from '../../components/Field.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { SecureAddressNote } from '../../components/SecureAddressNote.tsx';
import { TrashIcon } from '../../components/icons.tsx';
import { TitledSection } from '../../components/TitledSection.tsx';
import { ALARM_SOUND_LABELS, ALARM_SOUNDS, isAlarmSound, playChime } from '../../lib/chime.ts';
import { plural } from '../../lib/format.ts';
import type { AppSettings } from '../../lib/model.ts';
import { askToNotify, notifyPermission } from '../../state/alarms.ts';
import { NOT_SAVED_TEXT } from '../../lib/sync-status.ts';
import { deleteSubject, saveSettings } from '../../state/data.ts';
import { sessions, settings, subjects, tasks } from '../../state/signals.ts';
import { AccountSection } from './AccountSection.tsx';
import { DeleteAccount } from './DeleteAccount.tsx';
import { UpdateSection } from './UpdateSection.tsx';

type NumberField = 'focusMinutes' | 'breakMinutes' | 'cycles' | 'dailyGoalMinutes';
const LIMITS: Record<NumberField, { min: number; max: number; label: string; unit: string }> = {
  focusMinutes: { min: 1, max: 180, label: 'Focus length', unit: 'minutes' },
  breakMinutes: { min: 1, max: 60, label: 'Break length', unit: 'minutes' },
  cycles: { min: 1, max: 12, label: 'Focus phases per session', unit: 'phases' },
  dailyGoalMinutes: { min: 0, max: 1440, label: 'Daily goal', unit: 'minutes' },
};

function hourLabel(hour: number): string {
  return hour === 0 ? 'Midnight (00:00)' : `${String(hour).padStart(2, '0')}:00`;
}

function draftOf(current: AppSettings): Record<NumberField, string> {
  return {
    focusMinutes: String(current.focusMinutes),
    breakMinutes: String(current.breakMinutes),
    cycles: String(current.cycles),
    dailyGoalMinutes: String(current.dailyGoalMinutes),
  };
}

export function TimerSettings() {
  const [draft, setDraft] = useState<Record<NumberField, string>>(() => draftOf(settings.value));
  // The settings may arrive after the form is drawn (this device's store, then the account's): the
  // fields follow them until she types, so a save never writes back the defaults shown meanwhile.
  const [edited, setEdited] = useState(false);
  const current = settings.value;
  useEffect(() => {
    if (!edited) setDraft(draftOf(current));
  }, [current.focusMinutes, current.breakMinutes, current.cycles, current.dailyGoalMinutes, edited]);
  const [dayOffset, setDayOffset] = useState(settings.value.dayOffsetHours);
  const [errors, setErrors] = useState<Partial<Record<NumberField, string>>>({});
  const [saved, setSaved] = useState(false);
  const [notSaved, setNotSaved] = useState<string | null>(null);
  useEffect(() => setDayOffset(settings.value.dayOffsetHours), [settings.value.dayOffsetHours]);

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    setNotSaved(null);
    const next: AppSettings = { ...settings.value, dayOffsetHours: dayOffset };
    const problems: Partial<Record<NumberField, string>> = {};
    for (const field of Object.keys(LIMITS) as NumberField[]) {
      const { min, max } = LIMITS[field];
      const value = Number(draft[field]);
      if (!Number.isInteger(value) || value < min || value > max)
        problems[field] = `Enter a whole number from ${min} to ${max}.`;
      else next[field] = value;
    }
    setErrors(problems);
    if (Object.keys(problems).length > 0) return;
    try {
      await saveSettings(next);
    } catch {
      return setNotSaved(NOT_SAVED_TEXT);
    }
    setEdited(false);
    setSaved(true);
  };

  return (
    <form class="card stack" aria-labelledby="timer-title" onSubmit={(event) => void save(event)} noValidate>
      <h2 id="timer-title" class="card-title">
        Timer and goal
      </h2>
      <div class="settings-grid">
        {(Object.keys(LIMITS) as NumberField[]).map((field) => (
          <Field key={field} id={field} label={LIMITS[field].label}>
            <div class="row">
              <input
                id={field}
                class="input input-number"
                inputMode="numeric"
                value={draft[field]}
                onInput={(event) => {
                  setEdited(true);
                  setDraft({ ...draft, [field]: event.currentTarget.value });
                }}
                aria-invalid={errors[field] ? true : undefined}
                aria-describedby={`${field}-unit${errors[field] ? ` ${field}-error` : ''}`}
              />
              <span id={`${field}-unit`} class="muted small">
                {LIMITS[field].unit}
              </span>
            </div>
            <FieldError id={`${field}-error`} message={errors[field]} />
          </Field>
        ))}
        <Field id="day-offset" label="A study day starts at">
          <select
            id="day-offset"
            class="select"
            value={String(dayOffset)}
            onChange={(event) => setDayOffset(Number(event.currentTarget.value))}
            aria-describedby="day-offset-hint"
          >
            {Array.from({ length: 24 }, (_, hour) => (
              <option key={hour} value={String(hour)}>
                {hourLabel(hour)}
              </option>
            ))}
          </select>
          <p id="day-offset-hint" class="field-hint">
            A night owl's 01:30 session counts for the day before when the day starts later.
          </p>
        </Field>
      </div>
      <p class="small muted">New lengths apply from the next phase; a running phase keeps its end time.</p>
      {saved && (
        <div class="notice notice-success" role="status">
          <p>Settings saved.</p>
        </div>
      )}
      {notSaved && (
        <div class="notice notice-error" role="alert">
          <p>{notSaved}</p>
        </div>
      )}
      <div class="row">
        <button type="submit" class="button button-primary">
          Save settings
        </button>
      </div>
    </form>
  );
}

function AlarmSettings() {
  const current = settings.value;
  const permission = notifyPermission.value;
  // A change this device cannot keep is said by the banner above every screen (state/data.ts).
  const change = (next: Partial<AppSettings>) =>
    void saveSettings({ ...settings.value, ...next }).catch(() => undefined);
  return (
    <TitledSection class="card stack" titleId="alarm-title" title="Phase-end alarm">
      <p class="small muted">When a focus phase or a break ends, this device plays a sound.</p>
      <div class="settings-grid">
        <div class="field">
          <label class="field-label" for="alarm-sound">
            Sound
          </label>
          <div class="row">
            <select
              id="alarm-sound"
              class="select"
              value={current.alarmSound}
              disabled={current.alarmMuted}
              onChange={(event) => {
                const sound = event.currentTarget.value;
                if (isAlarmSound(sound)) change({ alarmSound: sound });
              }}
            >
              {ALARM_SOUNDS.map((sound) => (
                <option key={sound} value={sound}>
                  {ALARM_SOUND_LABELS[sound]}
                </option>
              ))}
            </select>
            <button
              type="button"
              class="button"
              disabled={current.alarmMuted}
              onClick={() => void playChime(settings.value.alarmSound)}
            >
              Play
            </button>
          </div>
          {/* Under the sound it silences, as large as the app's other checkboxes, and a whole row to tap. */}
          <label class="row check-row">
            <input
              type="checkbox"
              class="checkbox"
              checked={current.alarmMuted}
              onChange={(event) => change({ alarmMuted: event.currentTarget.checked })}
            />
            <span>Mute the sound</span>
          </label>
        </div>
      </div>
      <div class="stack">
        <p class="field-label">Notifications while the page is hidden</p>
        {permission === 'granted' && <p class="small">On: a notification says when a phase ends.</p>}
        {permission === 'denied' && (
          <p class="small" role="status">
            Blocked for this site. To get them, allow notifications in your browser's site settings, then reload.
          </p>
        )}
        {permission === 'unsupported' && <p class="small muted">This browser cannot show notifications.</p>}
        {permission === 'insecure' && <SecureAddressNote feature="notifications" />}
        {permission === 'default' && (
          <div class="row">
            <button type="button" class="button" onClick={() => void askToNotify()}>
              Allow notifications
            </button>
          </div>
        )}
      </div>
    </TitledSection>
  );
}

function SubjectSettings() {
  const [removing, setRemoving] = useState<{ id: string; name: string } | null>(null);
  return (
    <TitledSection class="card stack" titleId="subjects-title" title="Subjects">
      {subjects.value.length === 0 ? (
        <p class="muted">No subjects yet. Add one from the subject picker on Focus.</p>
      ) : (
        <ul class="list">
          {subjects.value.map((subject) => {
            const used = sessions.value.filter((session) => session.subjectId === subject.id).length;
            return (
              <li key={subject.id} class="list-item">
                <div class="list-main">
                  <p class="list-title">{subject.name}</p>
                  <p class="list-meta">
                    {plural(used, 'session')},{' '}
                    {plural(tasks.value.filter((task) => task.subjectId === subject.id).length, 'task')}
                  </p>
                </div>
                <button
                  type="button"
                  class="button button-quiet icon-button"
                  aria-label={`Remove subject ${subject.name}`}
                  title="Remove subject"
                  onClick={() => setRemoving(subject)}
                >
                  <TrashIcon size={18} />
                </button>
              </li>
            );
          })}
        </ul>
      )}
      <Dialog
        open={removing !== null}
        title={`Remove ${removing?.name ?? 'subject'}?`}
        onClose={() => setRemoving(null)}
        actions={
          <>
            <button type="button" class="button" onClick={() => setRemoving(null)}>
              Cancel
            </button>
            <button
              type="button"
              class="button button-danger"
              onClick={() => {
                // A removal this device cannot keep is said by the banner above every screen.
                if (removing) void deleteSubject(removing.id).catch(() => undefined);
                setRemoving(null);
              }}
            >
              Remove subject
            </button>
          </>
        }
      >
        <p>It disappears from the subject picker. Sessions and tasks keep the subject's name.</p>
      </Dialog>
    </TitledSection>
  );
}

export default function SettingsPage() {
  document.title = 'Settings · studyhall';
  return (
    <div class="page">
      <div class="page-head">
        <h1 class="page-title">Settings</h1>
      </div>
      <TimerSettings />
      <AlarmSettings />
      <section class="card row-between" aria-labelledby="privacy-link-title">
        <div>
          <h2 id="privacy-link-title" class="card-title">
            Privacy and community
          </h2>
          <p class="muted small">Who sees that you are studying, and what buddies and groups see of your day.</p>
        </div>
        <a class="button" href="/settings/privacy">
          Privacy settings
        </a>
      </section>
      <SubjectSettings />
      <UpdateSection />
      <AccountSection />
      <DeleteAccount />
    </div>
  );
}
