// What differs between the companion in a phone browser (the PWA at /companion/) and inside the
// Android app: where settings live, how requests go out, which server is the default, and the
// native overlay. Everything else is the same code.
import type { FetchLike } from '../../../core/pip-client.ts';
import type { SettingsStorage } from '../../../core/settings-storage.ts';

export interface NativeShell {
  overlayPermissionGranted(): Promise<boolean>;
  openOverlayPermissionSettings(): Promise<void>;
  startOverlay(): Promise<void>;
  /** The aspect ratio picture-in-picture should use while a session runs (clamped by the caller). */
  setPictureInPicture(options: { active: boolean; numerator: number; denominator: number }): Promise<void>;
}

export interface Platform {
  kind: 'web' | 'android';
  storage: SettingsStorage;
  fetch: FetchLike;
  defaultServerUrl: string;
  /** A reason to refuse this server URL on this platform, or undefined when it is fine. */
  serverUrlProblem(url: string): string | undefined;
  networkAvailable(): boolean;
  /** Calls back when the network or the page's visibility comes back, so the poll can ask at once. */
  onResume(callback: () => void): () => void;
  native: NativeShell | undefined;
  /**
   * In a browser at a plain-HTTP address (not a secure context), where the remote cannot be
   * installed or opened offline: the serving server's https address, or null when it has none.
   * Undefined where the question does not arise (a secure page, the Android app).
   */
  secureAddress?: () => Promise<string | null>;
}

/** Binds the global fetch, so a patched one (CapacitorHttp) is picked up too. */
export const globalFetch: FetchLike = (url, init) => fetch(url, init);

export function browserResumeEvents(callback: () => void): () => void {
  const onVisible = () => {
    if (document.visibilityState === 'visible') callback();
  };
  window.addEventListener('online', callback);
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    window.removeEventListener('online', callback);
    document.removeEventListener('visibilitychange', onVisible);
  };
}
