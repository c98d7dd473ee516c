// Registers /sw.js and reports a waiting new version, so the app can offer "New version, reload".
import { updateWaiting } from '../state/signals.ts';

export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  let reloading = false;
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (updateWaiting.value && !reloading) {
      reloading = true;
      location.reload();
    }
  });
  void navigator.serviceWorker
    .register('/sw.js')
    .then((registration) => {
      const watch = (worker: ServiceWorker | null) => {
        worker?.addEventListener('statechange', () => {
          if (worker.state === 'installed' && navigator.serviceWorker.controller) updateWaiting.value = worker;
        });
      };
      if (registration.waiting && navigator.serviceWorker.controller) updateWaiting.value = registration.waiting;
      watch(registration.installing);
      registration.addEventListener('updatefound', () => watch(registration.installing));
      // A long-open tab checks for a new build now and then.
      setInterval(() => void registration.update().catch(() => undefined), 30 * 60_000);
    })
    .catch(() => undefined);
}

export function applyWaitingUpdate(): void {
  updateWaiting.value?.postMessage('skip-waiting');
}
