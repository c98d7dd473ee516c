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

// Start alerts (Web Push). The server sends {type: "start_alert", actor: {id, handle}, target_type,
// target_id, started_at} and possibly a subject; the worker shows "Ada started studying Anatomy".
// One notification per actor and target (tag), so a second start replaces the first.
function startAlertNotification(payload) {
  const actor = (payload && payload.actor) || {};
  // A student without a handle is "A buddy", or "Someone in your group" for a group alert.
  const who =
    actor.display_name ||
    actor.displayName ||
    actor.handle ||
    (payload.target_type === 'group' ? 'Someone in your group' : 'A buddy');
  const subject =
    typeof payload.subject === 'string' && payload.subject.trim()
      ? payload.subject.trim()
      : typeof payload.subject_name === 'string' && payload.subject_name.trim()
        ? payload.subject_name.trim()
        : '';
  const url = payload.target_type === 'group' ? `/groups/${encodeURIComponent(payload.target_id)}` : '/buddies';
  return {
    title: subject ? `${who} started studying ${subject}` : `${who} started studying`,
    options: {
      body:
        payload.target_type === 'group'
          ? 'In one of your groups. Open it to join in.'
          : 'Open studyhall to study alongside.',
      tag: `start-alert:${actor.id || ''}:${payload.target_type || ''}:${payload.target_id || ''}`,
      icon: '/icon.svg',
      badge: '/icon.svg',
      timestamp: Date.parse(payload.started_at) || Date.now(),
      data: { url, type: 'start_alert' },
    },
  };
}

self.addEventListener('push', (event) => {
  let payload = null;
  try {
    payload = event.data ? event.data.json() : null;
  } catch {
    payload = null;
  }
  if (payload && payload.type === 'phase_end') {
    event.waitUntil(showPhaseEnd(payload));
    return;
  }
  if (!payload || payload.type !== 'start_alert') return;
  const { title, options } = startAlertNotification(payload);
  event.waitUntil(self.registration.showNotification(title, options));
});

// Phase ends (Web Push, {type: "phase_end", phase, ends_at}): "Focus phase over" or "Break over".
// The focus page shows the same notification itself when it is hidden, with the same tag, so the
// two replace each other; while a tab of the app is in sight its own chime says it already.
function phaseEndNotification(payload) {
  const focusEnded = payload.phase === 'focus';
  return {
    title: focusEnded ? 'Focus phase over' : 'Break over',
    options: {
      body: focusEnded ? 'Time for a break.' : 'Back to focus.',
      tag: 'phase-end',
      renotify: true,
      icon: '/icon.svg',
      badge: '/icon.svg',
      timestamp: Date.parse(payload.ends_at) || Date.now(),
      data: { url: '/focus', type: 'phase_end' },
    },
  };
}

async function showPhaseEnd(payload) {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  if (windows.some((client) => client.visibilityState === 'visible')) return;
  const { title, options } = phaseEndNotification(payload);
  await self.registration.showNotification(title, options);
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const target = new URL((event.notification.data && event.notification.data.url) || '/community', self.location.origin)
    .href;
  event.waitUntil(
    (async () => {
      const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const open = windows.find((client) => new URL(client.url).origin === self.location.origin);
      // The app's tab, taken to the buddy or group and brought forward; a new window otherwise
      // (navigate works only on a tab this worker controls).
      const moved = open ? await open.navigate(target).catch(() => null) : null;
      if (moved) {
        await moved.focus().catch(() => undefined);
        return;
      }
      await self.clients.openWindow(target);
    })(),
  );
});
