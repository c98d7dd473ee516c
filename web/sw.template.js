/* global self, caches */
// studyhall service worker. The gateway serves this file at /sw.js and substitutes the build
// placeholders on every request, so a new commit gives a new cache name and clients refresh.
const APP_VERSION = '__APP_VERSION__';
const GIT_SHA = '__GIT_SHA__';
const CACHE_NAME = '__PWA_CACHE__';
const APP_SHELL = ['/', '/index.html', '/shell.js'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE_NAME).then((cache) => cache.addAll(APP_SHELL)));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE_NAME).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

// Network first for navigations (the app shell), never for API, auth, proxy or relay routes.
self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  if (/^\/(api|__)/.test(url.pathname)) return;
  if (event.request.mode === 'navigate') {
    event.respondWith(fetch(event.request).catch(() => caches.match('/index.html')));
  }
});

self.addEventListener('message', (event) => {
  if (event.data === 'version') event.source?.postMessage({ version: APP_VERSION, sha: GIT_SHA, cache: CACHE_NAME });
});
