// The app's entry: styles, error reporting, the service worker, the student's data, the screens.
import { render } from 'preact';
import { App } from './App.tsx';
import { installErrorReporting } from './lib/error-reporter.ts';
import { registerServiceWorker } from './lib/service-worker.ts';
import { followAuthLink } from './state/auth-link.ts';
import { followAccount } from './state/session-start.ts';
import { online } from './state/signals.ts';
import './styles/tokens.css';
import './styles/base.css';
import './styles/shell.css';
import './styles/components.css';

installErrorReporting();
window.addEventListener('online', () => (online.value = true));
window.addEventListener('offline', () => (online.value = false));
// A recovery or e-mail change link's session, read from the address before anything else uses it.
void followAuthLink();
followAccount();
render(<App />, document.getElementById('app') as HTMLElement);
// After the first load: installing the service worker fetches the whole precache, which must not
// compete with the files this load needs.
if (document.readyState === 'complete') registerServiceWorker();
else window.addEventListener('load', () => registerServiceWorker(), { once: true });
