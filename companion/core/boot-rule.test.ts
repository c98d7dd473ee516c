// After boot the overlay starts only with auto_start on AND the overlay permission already granted.
import { describe, expect, it } from 'vitest';
import { shouldStartOverlayOnBoot } from './boot-rule.ts';
import { autoStartFromStored } from './settings.ts';

describe('the boot rule', () => {
  it.each([
    [true, true, true],
    [true, false, false],
    [false, true, false],
    [false, false, false],
  ])('auto_start %s, overlay permission %s: start %s', (autoStart, overlayPermissionGranted, expected) => {
    expect(shouldStartOverlayOnBoot({ autoStart, overlayPermissionGranted })).toBe(expected);
  });

  it('starts on a fresh install once the permission is granted, since auto_start defaults to on', () => {
    expect(shouldStartOverlayOnBoot({ autoStart: autoStartFromStored(null), overlayPermissionGranted: true })).toBe(
      true,
    );
  });
});
