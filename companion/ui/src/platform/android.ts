// The companion inside the Android app (Capacitor): settings in Capacitor Preferences (group
// pipapk_settings, which the boot receiver reads), requests through CapacitorHttp (it patches fetch,
// so plain-HTTP servers on the LAN work from the https web view), and the native overlay plugin.
import { registerPlugin } from '@capacitor/core';
import { Preferences } from '@capacitor/preferences';
import { preferencesSettingsStorage } from '../../../core/settings-storage.ts';
import { DEFAULT_SERVER_URL } from '../../../core/server-url.ts';
import { browserResumeEvents, globalFetch, type NativeShell, type Platform } from './platform.ts';

interface CompanionOverlayPlugin {
  overlayPermissionGranted(): Promise<{ granted: boolean }>;
  openOverlayPermissionSettings(): Promise<void>;
  startOverlay(): Promise<void>;
  setPictureInPicture(options: { active: boolean; numerator: number; denominator: number }): Promise<void>;
}

const overlayPlugin = registerPlugin<CompanionOverlayPlugin>('CompanionOverlay');

const native: NativeShell = {
  overlayPermissionGranted: async () => (await overlayPlugin.overlayPermissionGranted()).granted,
  openOverlayPermissionSettings: () => overlayPlugin.openOverlayPermissionSettings(),
  startOverlay: () => overlayPlugin.startOverlay(),
  setPictureInPicture: (options) => overlayPlugin.setPictureInPicture(options),
};

export function androidPlatform(): Platform {
  return {
    kind: 'android',
    storage: preferencesSettingsStorage(Preferences),
    fetch: globalFetch,
    defaultServerUrl: DEFAULT_SERVER_URL,
    serverUrlProblem: () => undefined,
    networkAvailable: () => navigator.onLine,
    onResume: browserResumeEvents,
    native,
  };
}
