// The companion's own service worker, served at /companion/sw.js, so its scope is /companion/ and
// nothing of the web app's. It precaches the built remote (the build fills in the list and the
// cache name) so the remote opens without a connection and can show its offline badge. The timer
// routes (/api/...) are outside its scope and never cached: the time must always be live.

// The few service-worker types used here (the project's TypeScript lib is the DOM one).
interface ExtendableEvent extends Event {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response> | Response): void;
}
interface ServiceWorkerScope {
  registration: { scope: string };
  location: Location;
  skipWaiting(): Promise<void>;
  clients: { claim(): Promise<void> };
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
}

declare const __COMPANION_CACHE__: string;
declare const __COMPANION_PRECACHE__: string[];

const worker = self as unknown as ServiceWorkerScope;
const CACHE_PREFIX = 'studyhall-companion-';
const cacheName = __COMPANION_CACHE__;
const precache = __COMPANION_PRECACHE__;

worker.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(cacheName)
      .then((cache) => cache.addAll(precache))
      .then(() => worker.skipWaiting()),
  );
});

worker.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names
            .filter((name) => name.startsWith(CACHE_PREFIX) && name !== cacheName)
            .map((name) => caches.delete(name)),
        ),
      )
      .then(() => worker.clients.claim()),
  );
});

worker.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  const scope = new URL(worker.registration.scope);
  if (request.method !== 'GET' || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) return;
  if (request.mode === 'navigate') {
    // The page from the network when it answers (a new build shows at once), the cached one when not.
    event.respondWith(
      fetch(request).catch(async () => (await caches.match(new URL('index.html', scope).href)) ?? Response.error()),
    );
    return;
  }
  event.respondWith(caches.match(request).then((cached) => cached ?? fetch(request)));
});
