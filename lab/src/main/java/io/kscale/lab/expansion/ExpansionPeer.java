package io.kscale.lab.expansion;

import io.kscale.assignor.KeyPreservingAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;

/** The assignors the expansion scenario compares. */
public enum ExpansionPeer {
    /** kscale's assignor, polled through {@link io.kscale.assignor.ExpansionBarrier} as README says. */
    KSCALE("kscale", "KeyPreservingAssignor", KeyPreservingAssignor.class.getName(), true),
    /** kscale's assignor with a plain {@code consumer.poll}: shows what the barrier adds. */
    KSCALE_NO_BARRIER("kscale-no-barrier", "KeyPreserving, plain poll", KeyPreservingAssignor.class.getName(), false),
    COOPERATIVE_STICKY("cooperative-sticky", "CooperativeStickyAssignor", CooperativeStickyAssignor.class.getName(), false),
    RANGE("range", "RangeAssignor", RangeAssignor.class.getName(), false);

    private final String cliName;
    private final String label;
    private final String className;
    private final boolean usesBarrier;

    ExpansionPeer(String cliName, String label, String className, boolean usesBarrier) {
        this.cliName = cliName;
        this.label = label;
        this.className = className;
        this.usesBarrier = usesBarrier;
    }

    /**
     * @param name a cli name, any case
     * @return the peer
     * @throws IllegalArgumentException naming the valid names if there is none of that name
     */
    public static ExpansionPeer fromCliName(String name) {
        for (ExpansionPeer peer : values()) {
            if (peer.cliName.equalsIgnoreCase(name.trim())) {
                return peer;
            }
        }
        throw new IllegalArgumentException("unknown assignor '" + name + "'; choose from kscale, kscale-no-barrier, cooperative-sticky, range");
    }

    /** @return whether members poll through kscale's {@code ExpansionBarrier} */
    public boolean usesBarrier() {
        return usesBarrier;
    }

    public String cliName() {
        return cliName;
    }

    public String label() {
        return label;
    }

    /** @return the value of {@code partition.assignment.strategy} */
    public String className() {
        return className;
    }
}
