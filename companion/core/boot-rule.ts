// After the phone boots, the Android app starts its timer overlay only when auto_start is on and
// the overlay permission was already granted; otherwise it silently does nothing (it never asks for
// a permission from the background). BootReceiver.java applies this same rule.

export interface BootConditions {
  autoStart: boolean;
  overlayPermissionGranted: boolean;
}

export function shouldStartOverlayOnBoot({ autoStart, overlayPermissionGranted }: BootConditions): boolean {
  return autoStart && overlayPermissionGranted;
}
