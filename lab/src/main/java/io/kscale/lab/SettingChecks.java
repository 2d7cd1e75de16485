package io.kscale.lab;

import java.time.Duration;
import java.util.List;

/**
 * The argument checks the lab's settings builders share, each failing with an
 * {@link IllegalArgumentException} that names the setting and the value it got, so that a bad
 * command-line flag says what to change.
 */
public final class SettingChecks {

    private SettingChecks() {
    }

    /** @return {@code value}, if it is at least 1 */
    public static long positive(String what, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return value;
    }

    /** @return {@code value}, if it is at least 1 */
    public static int positive(String what, int value) {
        return (int) positive(what, (long) value);
    }

    /** @return {@code value}, if it is at least 0 */
    public static int notNegative(String what, int value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, got " + value);
        }
        return value;
    }

    /** @return {@code value}, if it is longer than zero */
    public static Duration positive(String what, Duration value) {
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(what + " must be positive, got " + value);
        }
        return value;
    }

    /** @return {@code values}, if there is at least one */
    public static <T> List<T> nonEmpty(String what, List<T> values) {
        if (values.isEmpty()) {
            throw new IllegalArgumentException(what + ": at least one is needed");
        }
        return values;
    }
}
