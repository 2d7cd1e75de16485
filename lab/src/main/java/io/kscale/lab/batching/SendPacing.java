package io.kscale.lab.batching;

import java.util.Locale;

/** How a paced producer spreads its records over time; see {@link SendSchedule}. */
public enum SendPacing {
    /** Records in bursts, back to back, every {@link SendSchedule#BURST_INTERVAL_NANOS}, as Kafka's ProducerPerformance sends. */
    BURSTY,
    /** One record every 1/rate seconds. */
    EVEN,
    /** No pacing at all: the {@link SendRate#MAX} rate. Not chosen on the command line. */
    NONE;

    /** The command-line spelling: bursty, even (none for the max rate). */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses bursty or even. */
    public static SendPacing fromCliName(String name) {
        String n = name.trim();
        if (n.equalsIgnoreCase(BURSTY.cliName())) {
            return BURSTY;
        }
        if (n.equalsIgnoreCase(EVEN.cliName())) {
            return EVEN;
        }
        throw new IllegalArgumentException("Unknown pacing '" + name + "'; expected bursty or even");
    }
}
