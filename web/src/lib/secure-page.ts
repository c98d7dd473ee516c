// Whether this page is a secure context (https, or the computer's own localhost). Opened at the
// server's plain-HTTP LAN address it is not, and the browser leaves out the service worker (offline
// use), notifications, Web Push, the clipboard and Document Picture-in-Picture; the screens that
// offer those say so instead (components/SecureAddressNote.tsx).
import { clientConfig } from './client-config.ts';

/** False only where the browser says so (a DOM without the flag, in tests, counts as secure). */
export function isSecurePage(): boolean {
  return globalThis.isSecureContext !== false;
}

/** The server's https address from its client config, or null (none, or not known offline). */
export async function httpsAppUrl(): Promise<string | null> {
  try {
    const url = (await clientConfig()).https_url;
    return typeof url === 'string' && url.startsWith('https://') ? url : null;
  } catch {
    return null;
  }
}
