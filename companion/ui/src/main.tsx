// The companion's entry: pick the platform, start the poll, draw the remote, and (in a browser)
// register the companion's own service worker, whose scope is /companion/ only.
import { render } from 'preact';
import { pairingCodeFromHash } from '../../core/pairing-code.ts';
import { App } from './components/App.tsx';
import { detectPlatform } from './platform/detect.ts';
import { createCompanion } from './state/companion.ts';
import './styles/tokens.css';
import './styles/companion.css';

async function boot(): Promise<void> {
  const platform = await detectPlatform();
  const companion = createCompanion(platform);
  // The focus page's QR code links to /companion/#code=K7M2QD: take the code, then drop it from the address.
  const code = pairingCodeFromHash(window.location.hash);
  if (code) history.replaceState(null, '', window.location.pathname + window.location.search);
  await companion.start(code);
  // A QR link opened while the remote is already open in this tab.
  window.addEventListener('hashchange', () => {
    const next = pairingCodeFromHash(window.location.hash);
    if (!next) return;
    history.replaceState(null, '', window.location.pathname + window.location.search);
    void companion.savePairing(next);
  });
  const root = document.getElementById('app');
  if (root) render(<App companion={companion} />, root);
  if (platform.kind === 'web' && 'serviceWorker' in navigator) {
    navigator.serviceWorker
      .register('./sw.js', { scope: './' })
      .catch((error: unknown) => console.warn('companion: service worker not registered', error));
  }
}

void boot();
