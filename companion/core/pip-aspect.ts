// Android's picture-in-picture accepts aspect ratios between 1:2.39 and 2.39:1 and throws outside
// them. The ratio is handed over as a whole-number fraction, so the bounds are kept as the exact
// fractions 100/239 and 239/100: rounding 1/2.39 to three decimals would fall just outside.

export const PIP_ASPECT_MIN = 1 / 2.39;
export const PIP_ASPECT_MAX = 2.39;

export interface Rational {
  numerator: number;
  denominator: number;
}

const DEFAULT_ASPECT: Rational = { numerator: 16, denominator: 9 };

/** The aspect ratio of a width x height view, clamped to what picture-in-picture accepts. */
export function clampPipAspect(width: number, height: number): Rational {
  if (!Number.isFinite(width) || !Number.isFinite(height) || width <= 0 || height <= 0) return DEFAULT_ASPECT;
  const ratio = width / height;
  if (ratio > PIP_ASPECT_MAX) return { numerator: 239, denominator: 100 };
  if (ratio < PIP_ASPECT_MIN) return { numerator: 100, denominator: 239 };
  const numerator = Math.max(1, Math.round(width));
  const denominator = Math.max(1, Math.round(height));
  // Rounding a view of fractional pixels right at a bound must not cross it.
  if (numerator / denominator > PIP_ASPECT_MAX) return { numerator: 239, denominator: 100 };
  if (numerator / denominator < PIP_ASPECT_MIN) return { numerator: 100, denominator: 239 };
  return { numerator, denominator };
}

export function aspectValue({ numerator, denominator }: Rational): number {
  return numerator / denominator;
}
