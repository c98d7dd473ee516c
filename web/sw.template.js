/* global self, caches */
// studyhall service worker. The gateway serves this file at /sw.js and substitutes the build
// placeholders on every request: the version and cache name follow the checked-out commit, and
// the precache list follows the build in web/dist (every hashed file Vite wrote). A new build
// therefore changes this script's bytes, the browser installs it beside the running one, and the
// page offers "New version, reload" until the student accepts (then it takes over at once).
const APP_VERSION = '__APP_VERSION__';
const GIT_SHA = '__GIT_SHA__';
const CACHE_NAME = '__PWA_CACHE__';
// eslint-disable-next-line no-undef -- the gateway writes a JSON array literal here
const HASHED_FILES = __PRECACHE_FILES__;
// One cache per build: the commit's name plus a digest of the file list, so a rebuild without a new
// commit installs into a fresh cache instead of changing the files the running worker serves.
const BUILD_CACHE = `${CACHE_NAME}-${digest(HASHED_FILES.join('\n'))}`;
// Files outside Vite's manifest: the shell every route is answered with, and web/public's files.
const SHELL = '/index.html';
const PRECACHE = [SHELL, '/manifest.webmanifest', '/icon.svg', ...HASHED_FILES];
// Paths that belong to the server, never to the app shell (JSON routes, the proxy, the relay, the
// admin console, the phone companion's own pages).
const SERVER_PATHS = /^\/(api(\/|$)|__|companion(\/|$)|sw\.js$)/;

function digest(text) {
  let hash = 2166136261; // FNV-1a, 32 bits: enough to tell builds apart
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 16777619);
  return (hash >>> 0).toString(36);
}

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(BUILD_CACHE).then((cache) =>
      // `cache: 'reload'` skips the HTTP cache, so the precache holds exactly this build's files.
      cache.addAll(PRECACHE.map((url) => new Request(url, { cache: 'reload' }))),
    ),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) if (name !== BUILD_CACHE) await caches.delete(name);
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== 'GET' || url.origin !== self.location.origin || SERVER_PATHS.test(url.pathname)) return;
  if (request.mode === 'navigate') {
    // Every route of the app is the same shell: answer from the precache (instant, and offline),
    // and fall back to the network only when it is missing.
    event.respondWith(caches.match(SHELL, { cacheName: BUILD_CACHE }).then((cached) => cached ?? fetch(request)));
    return;
  }
  // Hashed files never change under one name: cache first.
  event.respondWith(caches.match(request, { cacheName: BUILD_CACHE }).then((cached) => cached ?? fetch(request)));
});

self.addEventListener('message', (event) => {
  if (event.data === 'skip-waiting') self.skipWaiting();
  if (event.data === 'version') event.source?.postMessage({ version: APP_VERSION, sha: GIT_SHA, cache: BUILD_CACHE });
});
