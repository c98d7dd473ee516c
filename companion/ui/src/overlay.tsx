// The Android overlay's page: the Java OverlayService draws it in a window over other apps
// (TYPE_APPLICATION_OVERLAY) and passes the server and pairing code in the query. While no session
// runs it only watches (every AUTO_POLL_MS) and keeps the window hidden; when a session starts it
// shows the window and polls like the remote (1 s / 3 s, with backoff); when the session ends it
// hides again. The bridge object is the service's JavaScript interface.
import { signal } from '@preact/signals';
import { render } from 'preact';
import { createPipClient } from '../../core/pip-client.ts';
import { formatRemaining, remainingMsAt, startRenderTick } from '../../core/render-tick.ts';
import { isLoopbackServer, normalizeServerUrl } from '../../core/server-url.ts';
import { normalizePairingCode } from '../../core/pairing-code.ts';
import { watchForSessionStart } from '../../core/session-detect.ts';
import { startStatePoller, type PollerView } from '../../core/state-poller.ts';
import { globalFetch } from './platform/platform.ts';
import './styles/tokens.css';
import './styles/overlay.css';

interface OverlayBridge {
  setVisible(visible: boolean): void;
  openApp(): void;
  close(): void;
}

const bridge = (globalThis as { StudyhallOverlay?: OverlayBridge }).StudyhallOverlay;
const params = new URLSearchParams(window.location.search);
const server = normalizeServerUrl(params.get('server') ?? '');
const serverUrl = server.ok ? server.url : 'http://127.0.0.1:3000';
const client = createPipClient({
  serverUrl,
  pairingCode: normalizePairingCode(params.get('code') ?? '') ?? null,
  fetch: globalFetch,
});

const view = signal<PollerView | undefined>(undefined);
const now = signal(Date.now());

function Overlay() {
  const current = view.value;
  const snapshot = current?.snapshot;
  const time = snapshot ? formatRemaining(remainingMsAt(snapshot, now.value)) : '--:--';
  const phase = !snapshot || snapshot.phase === 'idle' ? 'Idle' : snapshot.phase === 'focus' ? 'Focus' : 'Break';
  return (
    <div class={`overlay${current?.offline ? ' overlay--offline' : ''}`}>
      <button type="button" class="overlay-face" aria-label="Open studyhall remote" onClick={() => bridge?.openApp()}>
        <span class="overlay-phase">
          {current?.offline ? 'Offline' : snapshot?.running ? phase : `${phase} · paused`}
        </span>
        <span class="overlay-time">{time}</span>
      </button>
      <button type="button" class="overlay-close" aria-label="Hide timer" onClick={() => bridge?.close()}>
        ×
      </button>
    </div>
  );
}

let stopWatching: (() => void) | undefined;
let stopPolling: (() => void) | undefined;

function watch(): void {
  stopPolling?.();
  bridge?.setVisible(false);
  stopWatching = watchForSessionStart({ getState: () => client.getState(), onSessionStart: show });
}

function show(): void {
  stopWatching?.();
  bridge?.setVisible(true);
  const poller = startStatePoller({
    getState: () => client.getState(),
    loopback: isLoopbackServer(serverUrl),
    networkAvailable: () => navigator.onLine,
    onChange: (next) => {
      view.value = next;
      // The session ended on the focus page: hide and go back to watching for the next one.
      if (next.snapshot?.phase === 'idle') watch();
    },
  });
  stopPolling = () => poller.stop();
}

startRenderTick((time) => (now.value = time));
const root = document.getElementById('overlay');
if (root) render(<Overlay />, root);
watch();
