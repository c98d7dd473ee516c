// Picture-in-picture aspect ratio, clamped to 1/2.39 .. 2.39 at both ends.
import { describe, expect, it } from 'vitest';
import { aspectValue, clampPipAspect, PIP_ASPECT_MAX, PIP_ASPECT_MIN } from './pip-aspect.ts';

describe('clampPipAspect', () => {
  it('keeps a ratio inside the range as the view measured it', () => {
    expect(clampPipAspect(320, 180)).toEqual({ numerator: 320, denominator: 180 });
    expect(clampPipAspect(180, 320)).toEqual({ numerator: 180, denominator: 320 });
  });

  it('clamps a ratio wider than 2.39:1 to exactly 2.39', () => {
    expect(clampPipAspect(1000, 100)).toEqual({ numerator: 239, denominator: 100 });
    expect(aspectValue(clampPipAspect(1000, 100))).toBe(PIP_ASPECT_MAX);
  });

  it('clamps a ratio taller than 1:2.39 to exactly 1/2.39', () => {
    const clamped = clampPipAspect(100, 1000);
    expect(clamped).toEqual({ numerator: 100, denominator: 239 });
    expect(aspectValue(clamped)).toBeCloseTo(PIP_ASPECT_MIN, 12);
    expect(aspectValue(clamped)).toBeGreaterThanOrEqual(PIP_ASPECT_MIN);
  });

  it('keeps the bounds themselves, and never lets rounding step over one', () => {
    expect(clampPipAspect(239, 100)).toEqual({ numerator: 239, denominator: 100 });
    expect(clampPipAspect(100, 239)).toEqual({ numerator: 100, denominator: 239 });
    // 2.389 fits, but rounded to whole pixels it would be 3/1.
    const tiny = clampPipAspect(2.389, 1);
    expect(aspectValue(tiny)).toBeLessThanOrEqual(PIP_ASPECT_MAX);
    const tinyTall = clampPipAspect(1, 2.389);
    expect(aspectValue(tinyTall)).toBeGreaterThanOrEqual(PIP_ASPECT_MIN);
  });

  it.each([
    [0, 100],
    [100, 0],
    [-1, 5],
    [Number.NaN, 5],
    [Number.POSITIVE_INFINITY, 5],
  ])('falls back to 16:9 for a view of %s x %s', (width, height) => {
    expect(clampPipAspect(width, height)).toEqual({ numerator: 16, denominator: 9 });
  });
});
