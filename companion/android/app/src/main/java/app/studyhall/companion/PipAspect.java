package app.studyhall.companion;

import android.util.Rational;

/**
 * Picture-in-picture accepts aspect ratios from 1:2.39 to 2.39:1 and throws outside them. The web
 * view already clamps (companion/core/pip-aspect.ts); this guards the native call all the same.
 */
final class PipAspect {

    static final Rational MAX = new Rational(239, 100);
    static final Rational MIN = new Rational(100, 239);

    private PipAspect() {}

    static Rational clamp(int numerator, int denominator) {
        if (numerator <= 0 || denominator <= 0) return new Rational(16, 9);
        Rational ratio = new Rational(numerator, denominator);
        if (ratio.compareTo(MAX) > 0) return MAX;
        if (ratio.compareTo(MIN) < 0) return MIN;
        return ratio;
    }
}
