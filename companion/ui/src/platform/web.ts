// The companion as a PWA served by the gateway at /companion/: settings in localStorage, requests
// with the browser's fetch. The page runs under the gateway's Content-Security-Policy, which lets it
// reach only the server that served it, so that server is the default and the only one allowed.
// Opened at a plain-HTTP address it is no secure context (no service worker, so no install and no
// offline start): then it asks that server's client config for its https address, to point there.
import { localSettingsStorage } from '../../../core/settings-storage.ts';
import { browserResumeEvents, globalFetch, type Platform } from './platform.ts';

/** The studyhall server that served this page: /companion/ sits at its root. */
export function servingServerUrl(pageUrl: string): string {
  return new URL('..', pageUrl).href.replace(/\/+$/, '');
}

export function webPlatform(): Platform {
  const own = servingServerUrl(window.location.href);
  const ownOrigin = new URL(own).origin;
  return {
    kind: 'web',
    storage: localSettingsStorage(window.localStorage),
    fetch: globalFetch,
    defaultServerUrl: own,
    serverUrlProblem: (url) =>
      new URL(url).origin === ownOrigin
        ? undefined
        : `In a browser the remote can only reach the server it was opened from (${ownOrigin}). To use another server, open its address followed by /companion/.`,
    networkAvailable: () => navigator.onLine,
    onResume: browserResumeEvents,
    native: undefined,
    ...(window.isSecureContext === false ? { secureAddress: () => httpsAddressOf(own) } : {}),
  };
}

/** `https_url` of the server's GET /api/client-config, or null (none, unreadable, not reached). */
export async function httpsAddressOf(server: string): Promise<string | null> {
  try {
    const answer = await fetch(`${server}/api/client-config`, { headers: { accept: 'application/json' } });
    if (!answer.ok) return null;
    const url = ((await answer.json()) as { https_url?: unknown }).https_url;
    return typeof url === 'string' && url.startsWith('https://') ? url : null;
  } catch {
    return null;
  }
}
