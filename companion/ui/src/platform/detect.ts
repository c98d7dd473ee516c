// Picks the platform. Capacitor's native bridge defines window.Capacitor before the page loads, so
// the browser build never loads the Android code (or @capacitor/preferences) at all.
import type { Platform } from './platform.ts';
import { webPlatform } from './web.ts';

interface CapacitorGlobal {
  isNativePlatform?: () => boolean;
}

export function isNativeShell(): boolean {
  const capacitor = (globalThis as { Capacitor?: CapacitorGlobal }).Capacitor;
  return capacitor?.isNativePlatform?.() === true;
}

export async function detectPlatform(): Promise<Platform> {
  if (!isNativeShell()) return webPlatform();
  const { androidPlatform } = await import('./android.ts');
  return androidPlatform();
}
