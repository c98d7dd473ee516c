// Settings: the server address (with a test that asks it for the timer), the pairing code for a
// server that runs with pairing on, and auto start. In the Android app also the overlay permission;
// in a browser at a plain-HTTP address, what installing the remote needs.
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Companion, ConnectionTest } from '../state/companion.ts';
import { HomeScreenNote } from './HomeScreenNote.tsx';
import { Sheet } from './Sheet.tsx';

function OverlayRow({ companion }: { companion: Companion }) {
  const native = companion.platform.native;
  const [granted, setGranted] = useState<boolean | undefined>(undefined);
  useEffect(() => {
    void native?.overlayPermissionGranted().then(setGranted);
  }, [native]);
  if (!native) return null;
  return (
    <div class="field">
      <span class="field-label">Timer over other apps</span>
      <p class="field-help">A small timer stays on top while you use other apps during a session.</p>
      {granted ? (
        <button type="button" class="button button--secondary" onClick={() => void native.startOverlay()}>
          Show the timer now
        </button>
      ) : (
        <button
          type="button"
          class="button button--secondary"
          onClick={() => void native.openOverlayPermissionSettings()}
        >
          Allow drawing over other apps
        </button>
      )}
    </div>
  );
}

export function SettingsSheet({
  companion,
  open,
  onClose,
}: {
  companion: Companion;
  open: boolean;
  onClose: () => void;
}) {
  const settings = companion.settings.value;
  const [server, setServer] = useState('');
  const [code, setCode] = useState('');
  const [serverError, setServerError] = useState<string | undefined>(undefined);
  const [codeError, setCodeError] = useState<string | undefined>(undefined);
  const [test, setTest] = useState<ConnectionTest | 'testing' | undefined>(undefined);

  useEffect(() => {
    if (!open) return;
    setServer(settings?.serverUrl ?? '');
    setCode(settings?.pairingCode ?? '');
    setServerError(undefined);
    setCodeError(undefined);
    setTest(undefined);
  }, [open]);

  async function save(event: Event) {
    event.preventDefault();
    const serverResult = await companion.saveServer(server);
    setServerError(serverResult.ok ? undefined : serverResult.message);
    const codeResult = await companion.savePairing(code);
    setCodeError(codeResult.ok ? undefined : codeResult.message);
    if (serverResult.ok && codeResult.ok) onClose();
  }

  async function runTest() {
    setTest('testing');
    setTest(await companion.testConnection(server, code));
  }

  return (
    <Sheet id="settings" title="Settings" open={open} onClose={onClose}>
      <form class="sheet-form" onSubmit={save} noValidate>
        <div class="field">
          <label class="field-label" for="server-url">
            Server
          </label>
          <input
            id="server-url"
            class="input"
            type="url"
            inputMode="url"
            autocomplete="off"
            autocapitalize="off"
            spellcheck={false}
            value={server}
            aria-invalid={serverError ? 'true' : 'false'}
            aria-describedby={serverError ? 'server-url-error' : 'server-url-help'}
            onInput={(event) => setServer((event.target as HTMLInputElement).value)}
          />
          <FieldNote id="server-url" error={serverError}>
            The address studyhall prints when it starts, for example http://192.168.1.20:3000.
          </FieldNote>
          <div class="test-row">
            <button
              type="button"
              class="button button--secondary"
              onClick={() => void runTest()}
              disabled={test === 'testing'}
            >
              {test === 'testing' ? 'Testing…' : 'Test connection'}
            </button>
            {test && test !== 'testing' ? (
              <p class={`test-result test-result--${test.ok ? 'ok' : 'bad'}`} role="status">
                {test.text}
              </p>
            ) : null}
          </div>
        </div>

        <div class="field">
          <label class="field-label" for="pairing-code">
            Pairing code
          </label>
          <input
            id="pairing-code"
            class="input input--code"
            type="text"
            autocomplete="off"
            autocapitalize="characters"
            spellcheck={false}
            maxLength={7}
            value={code}
            aria-invalid={codeError ? 'true' : 'false'}
            aria-describedby={codeError ? 'pairing-code-error' : 'pairing-code-help'}
            onInput={(event) => setCode((event.target as HTMLInputElement).value)}
          />
          <FieldNote id="pairing-code" error={codeError}>
            Only when the server asks for one: it is shown on the focus page.
          </FieldNote>
        </div>

        <div class="field field--switch">
          <label class="switch" for="auto-start">
            <span>
              <span class="field-label">Start with the phone</span>
              <span class="field-help">
                {companion.platform.kind === 'android'
                  ? 'After a restart, watch for a session and show the timer over other apps (needs that permission).'
                  : 'Used by the Android app: after a restart it shows the timer over other apps.'}
              </span>
            </span>
            <input
              id="auto-start"
              type="checkbox"
              role="switch"
              checked={settings?.autoStart ?? true}
              onChange={(event) => void companion.setAutoStart((event.target as HTMLInputElement).checked)}
            />
          </label>
        </div>

        <OverlayRow companion={companion} />

        <HomeScreenNote companion={companion} />

        <button type="submit" class="button button--primary button--wide">
          Save
        </button>
      </form>
    </Sheet>
  );
}

/** Under a field: its error when there is one (announced), else its help; `${id}-error` / `${id}-help`. */
function FieldNote({ id, error, children }: { id: string; error: string | undefined; children: ComponentChildren }) {
  return error ? (
    <p class="field-error" id={`${id}-error`} role="alert">
      {error}
    </p>
  ) : (
    <p class="field-help" id={`${id}-help`}>
      {children}
    </p>
  );
}
