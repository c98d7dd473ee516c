// The companion as a PWA served by the gateway at /companion/: settings in localStorage, requests
// with the browser's fetch. The page runs under the gateway's Content-Security-Policy, which lets it
// reach only the server that served it, so that server is the default and the only one allowed.
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
  };
}
