// /profile: display name, handle (another student's handle is a field error) and avatar (a picked
// image, cropped to a square and resized in the browser, sent as a data URL that the server
// stores in the avatars bucket).
import { useEffect, useState } from 'preact/hooks';
import { BusyButton } from '../../components/BusyButton.tsx';
import { FieldError } from '../../components/FieldError.tsx';
import { TextField } from '../../components/TextField.tsx';
import { ApiError, describeError, requestJson } from '../../lib/api.ts';
import { writeKv } from '../../lib/db.ts';
import { requireToken } from '../../state/auth.ts';
import { account, db, online, profile } from '../../state/signals.ts';
import { resizeToDataUrl } from './resize-image.ts';
import '../../styles/profile.css';

interface ProfileRow {
  handle: string | null;
  display_name: string | null;
  avatar_url: string | null;
}

const HANDLE = /^[a-z0-9_]{3,24}$/i;

function Avatar({ url, name, size = 'large' }: { url: string | null; name: string; size?: 'large' | 'small' }) {
  const [broken, setBroken] = useState(false);
  useEffect(() => setBroken(false), [url]);
  const initials = name.trim().slice(0, 1).toUpperCase() || '?';
  return url && !broken ? (
    <img class={`avatar avatar-${size}`} src={url} alt="" onError={() => setBroken(true)} />
  ) : (
    <span class={`avatar avatar-${size} avatar-initials`} aria-hidden="true">
      {initials}
    </span>
  );
}

export default function ProfilePage() {
  const current = profile.value;
  const [displayName, setDisplayName] = useState(current?.displayName ?? '');
  const [handle, setHandle] = useState(current?.handle ?? '');
  const [avatar, setAvatar] = useState<string | null>(null);
  const [errors, setErrors] = useState<{ handle?: string; displayName?: string; avatar?: string }>({});
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  document.title = 'Profile · studyhall';

  useEffect(() => {
    setDisplayName(current?.displayName ?? '');
    setHandle(current?.handle ?? '');
  }, [current?.displayName, current?.handle]);

  const pick = async (file: File | undefined) => {
    setErrors((previous) => ({ ...previous, avatar: undefined }));
    if (!file) return;
    if (!/^image\/(png|jpeg|gif|webp)$/.test(file.type))
      return setErrors((previous) => ({ ...previous, avatar: 'Choose a PNG, JPEG, GIF or WebP image.' }));
    try {
      setAvatar(await resizeToDataUrl(file, 256));
    } catch {
      setErrors((previous) => ({ ...previous, avatar: 'This image could not be read. Try another one.' }));
    }
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    setProblem(null);
    const nextErrors: typeof errors = {};
    if (handle.trim() && !HANDLE.test(handle.trim())) nextErrors.handle = 'Use 3 to 24 letters, digits or underscores.';
    if (displayName.trim().length > 80) nextErrors.displayName = 'Keep the name under 80 characters.';
    setErrors(nextErrors);
    if (nextErrors.handle || nextErrors.displayName) return;
    const body: Record<string, unknown> = {};
    if (displayName.trim() !== (current?.displayName ?? '')) body.display_name = displayName.trim() || null;
    if (handle.trim() && handle.trim() !== (current?.handle ?? '')) body.handle = handle.trim();
    if (avatar) body.avatar_url = avatar;
    if (Object.keys(body).length === 0) {
      setSaved(true);
      return;
    }
    setBusy(true);
    try {
      const token = await requireToken();
      const answer = await requestJson<{ profile: ProfileRow }>('/__auth/profile', { token, body });
      profile.value = {
        handle: answer.profile.handle,
        displayName: answer.profile.display_name,
        avatarUrl: answer.profile.avatar_url,
      };
      if (db.value) await writeKv(db.value, 'profile', profile.value);
      setAvatar(null);
      setSaved(true);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'handle_taken')
        setErrors({ handle: 'Another student already has this handle. Try another one.' });
      else if (
        error instanceof ApiError &&
        (error.code === 'avatar_too_large' ||
          error.code === 'invalid_avatar' ||
          error.code === 'unsupported_avatar_type')
      )
        setErrors({ avatar: error.message });
      else setProblem(describeError(error));
    } finally {
      setBusy(false);
    }
  };

  const shownName = displayName || handle || account.value?.email || '';
  return (
    <div class="page">
      <div class="page-head">
        <div>
          <h1 class="page-title">Profile</h1>
          <p class="page-lead">How other students see you in groups and on leaderboards.</p>
        </div>
      </div>
      <form class="card stack profile-form" onSubmit={(event) => void save(event)} noValidate>
        <div class="profile-avatar-row">
          <Avatar url={avatar ?? current?.avatarUrl ?? null} name={shownName} />
          <div class="stack-tight">
            <label class="button file-button">
              Choose a picture…
              <input
                type="file"
                accept="image/png,image/jpeg,image/gif,image/webp"
                class="visually-hidden"
                aria-describedby={errors.avatar ? 'avatar-error' : 'avatar-hint'}
                onChange={(event) => {
                  void pick(event.currentTarget.files?.[0]);
                  event.currentTarget.value = '';
                }}
              />
            </label>
            {errors.avatar ? (
              <FieldError id="avatar-error" message={errors.avatar} />
            ) : (
              <p id="avatar-hint" class="field-hint">
                {avatar ? 'New picture chosen; save to use it.' : 'Cropped to a square, 256 pixels.'}
              </p>
            )}
          </div>
        </div>
        <TextField
          id="display-name"
          label="Display name"
          value={displayName}
          onValue={setDisplayName}
          maxLength={80}
          autoComplete="nickname"
          error={errors.displayName}
        />
        <TextField
          id="handle"
          label="Handle"
          value={handle}
          onValue={setHandle}
          maxLength={24}
          autoComplete="username"
          spellcheck={false}
          aria-describedby="handle-hint"
          error={errors.handle}
        >
          {!errors.handle && (
            <p id="handle-hint" class="field-hint">
              Buddies find you by it. 3 to 24 letters, digits or underscores.
            </p>
          )}
        </TextField>
        <p class="small muted">Signed in as {account.value?.email ?? 'this account'}.</p>
        {problem && (
          <div class="notice notice-error" role="alert">
            <p>{problem}</p>
          </div>
        )}
        {saved && (
          <div class="notice notice-success" role="status">
            <p>Your profile is saved.</p>
          </div>
        )}
        <div class="row">
          <BusyButton
            type="submit"
            class="button button-primary"
            disabled={!online.value}
            busy={busy}
            busyLabel="Saving…"
          >
            Save profile
          </BusyButton>
          {!online.value && <p class="small muted">Saving needs the server; you are offline.</p>}
        </div>
      </form>
    </div>
  );
}
