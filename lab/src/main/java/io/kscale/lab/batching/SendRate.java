package io.kscale.lab.batching;

import java.util.Locale;

/** How fast a producer sends: a number of records per second, or as fast as {@code send()} returns. */
public final class SendRate {

    /** No pacing: the next record goes as soon as {@code send()} returns (it blocks when the buffer is full). */
    public static final SendRate MAX = new SendRate(0);

    private final long recordsPerSecond;

    private SendRate(long recordsPerSecond) {
        this.recordsPerSecond = recordsPerSecond;
    }

    public static SendRate perSecond(long recordsPerSecond) {
        if (recordsPerSecond <= 0) {
            throw new IllegalArgumentException("a rate must be a positive number of records per second or 'max', got "
                    + recordsPerSecond);
        }
        return new SendRate(recordsPerSecond);
    }

    /** Parses the command-line spelling: {@code max}, or records per second such as {@code 5000}. */
    public static SendRate parse(String text) {
        String t = text.trim().toLowerCase(Locale.ROOT);
        if (t.equals("max")) {
            return MAX;
        }
        try {
            return perSecond(Long.parseLong(t));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a rate is records per second (e.g. 5000) or 'max', got '" + text + "'");
        }
    }

    public boolean isMax() {
        return recordsPerSecond == 0;
    }

    /** Records per second; only for a paced rate. */
    public long recordsPerSecond() {
        if (isMax()) {
            throw new IllegalStateException("the max rate has no records per second");
        }
        return recordsPerSecond;
    }

    /** The command-line spelling: {@code max} or the number. */
    @Override
    public String toString() {
        return isMax() ? "max" : Long.toString(recordsPerSecond);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SendRate && ((SendRate) o).recordsPerSecond == recordsPerSecond;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(recordsPerSecond);
    }
}
