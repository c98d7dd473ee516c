// Where start alerts arrive: "allow notifications on this device" (a Web Push subscription made
// with this server's VAPID key and stored as a device token), and the quiet hours, in the
// browser's timezone, during which the server sends nothing. On a page that is not a secure
// context no device can subscribe: the card says what alerts need instead.
import { useEffect, useState } from 'preact/hooks';
import { browserOffsetMinutes, readQuietHours, saveQuietHours } from '../../lib/community/alerts.ts';
import { deviceAlerts, disableDeviceAlerts, enableDeviceAlerts, type DeviceAlerts } from '../../lib/community/push.ts';
import { describeCommunityError } from '../../lib/community/words.ts';
import { FieldError } from '../FieldError.tsx';
import { SecureAddressNote } from '../SecureAddressNote.tsx';
import { TextField } from '../TextField.tsx';
import { TitledSection } from '../TitledSection.tsx';
import { BellIcon } from './icons.tsx';
import { SuccessNotice } from './Notices.tsx';

function offsetText(minutes: number): string {
  const sign = minutes >= 0 ? '+' : '−';
  const hours = Math.floor(Math.abs(minutes) / 60);
  const rest = Math.abs(minutes) % 60;
  return `UTC${sign}${hours}${rest ? `:${String(rest).padStart(2, '0')}` : ''}`;
}

const DEVICE_WORDS: Record<Exclude<DeviceAlerts, 'insecure'>, string> = {
  unsupported: 'This browser cannot show notifications from studyhall. Alerts still reach your other devices.',
  unavailable: 'This server does not send notifications, so start alerts cannot reach any device yet.',
  blocked: 'Notifications are blocked for this site. Allow them in the browser’s site settings, then come back.',
  off: 'This device does not receive start alerts yet.',
  on: 'This device receives start alerts.',
};

export function StartAlertsCard() {
  const [device, setDevice] = useState<DeviceAlerts | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [quietError, setQuietError] = useState<string | null>(null);
  const [quietSaved, setQuietSaved] = useState(false);
  useEffect(() => {
    void deviceAlerts()
      .then(setDevice)
      .catch(() => setDevice('unsupported'));
    void readQuietHours()
      .then((quiet) => {
        setStart(quiet.start?.slice(0, 5) ?? '');
        setEnd(quiet.end?.slice(0, 5) ?? '');
      })
      .catch(() => undefined);
  }, []);

  const toggleDevice = async () => {
    setBusy(true);
    setError(null);
    try {
      if (device === 'on') await disableDeviceAlerts();
      else await enableDeviceAlerts();
      setDevice(await deviceAlerts());
    } catch (failure) {
      setError(describeCommunityError(failure));
      // The button comes back now; what the device can do is checked again behind it.
      setBusy(false);
      setDevice(await deviceAlerts().catch(() => 'unsupported' as const));
    } finally {
      setBusy(false);
    }
  };

  const saveQuiet = async (event: Event) => {
    event.preventDefault();
    setQuietSaved(false);
    setQuietError(null);
    if (Boolean(start) !== Boolean(end)) return setQuietError('Give both a start and an end, or clear both.');
    try {
      await saveQuietHours({ start: start || null, end: end || null });
      setQuietSaved(true);
    } catch (failure) {
      setQuietError(describeCommunityError(failure));
    }
  };

  return (
    <TitledSection class="card stack" titleId="alerts-title" title="Start alerts">
      <p class="muted small">
        Ring the bell on a buddy or a group to hear when they start studying, on every device where you allow it.
      </p>
      <div class="alerts-device">
        <BellIcon size={20} />
        {device === 'insecure' ? (
          <SecureAddressNote feature="alerts" class="" role="status" />
        ) : (
          <p role="status">{device ? DEVICE_WORDS[device] : 'Checking this device…'}</p>
        )}
        {(device === 'off' || device === 'on') && (
          <button
            type="button"
            class={`button${device === 'off' ? ' button-primary' : ''}`}
            disabled={busy}
            onClick={() => void toggleDevice()}
          >
            {busy ? 'Working…' : device === 'off' ? 'Allow notifications on this device' : 'Stop on this device'}
          </button>
        )}
      </div>
      <FieldError message={error} />
      <form class="inline-form" onSubmit={(event) => void saveQuiet(event)} noValidate>
        <TextField
          id="quiet-start"
          label="Quiet from"
          type="time"
          value={start}
          onValue={setStart}
          aria-describedby="quiet-hint"
        />
        <TextField
          id="quiet-end"
          label="until"
          type="time"
          value={end}
          onValue={setEnd}
          aria-describedby="quiet-hint"
        />
        <button type="submit" class="button">
          Save quiet hours
        </button>
      </form>
      <p id="quiet-hint" class="field-hint">
        No alerts are sent in this window (it may cross midnight). Times are in this browser’s timezone,{' '}
        {offsetText(browserOffsetMinutes())}.
      </p>
      <FieldError message={quietError} />
      {quietSaved && (
        <SuccessNotice>
          {start ? `Quiet from ${start} until ${end}.` : 'No quiet hours: alerts may come at any time.'}
        </SuccessNotice>
      )}
    </TitledSection>
  );
}
