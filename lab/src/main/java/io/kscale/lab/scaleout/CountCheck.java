package io.kscale.lab.scaleout;

/**
 * The final counts in the instances' stores (read with interactive queries) against what the
 * producer had acknowledged per key.
 */
public final class CountCheck {

    private final int keys;
    private final int wrongCounts;
    private final int keysOnTwoInstances;
    private final long recordsSent;
    private final long recordsCounted;

    /**
     * @param keys keys the producer wrote
     * @param wrongCounts keys whose stored count differs from the records acknowledged (missing keys included)
     * @param keysOnTwoInstances keys found in the active stores of more than one instance
     * @param recordsSent records acknowledged
     * @param recordsCounted the sum of the stored counts
     */
    public CountCheck(int keys, int wrongCounts, int keysOnTwoInstances, long recordsSent, long recordsCounted) {
        this.keys = keys;
        this.wrongCounts = wrongCounts;
        this.keysOnTwoInstances = keysOnTwoInstances;
        this.recordsSent = recordsSent;
        this.recordsCounted = recordsCounted;
    }

    public int keys() {
        return keys;
    }

    public int wrongCounts() {
        return wrongCounts;
    }

    public int keysOnTwoInstances() {
        return keysOnTwoInstances;
    }

    public long recordsSent() {
        return recordsSent;
    }

    public long recordsCounted() {
        return recordsCounted;
    }

    /** @return whether every key's count is right and each key is in one store */
    public boolean correct() {
        return wrongCounts == 0 && keysOnTwoInstances == 0 && recordsSent == recordsCounted;
    }

    @Override
    public String toString() {
        return keys + " keys, " + wrongCounts + " wrong, " + keysOnTwoInstances + " on two instances, " + recordsCounted
                + " of " + recordsSent + " records counted";
    }
}
