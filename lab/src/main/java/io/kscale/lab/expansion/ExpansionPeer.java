package io.kscale.lab.expansion;

import io.kscale.assignor.KeyPreservingAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.RangeAssignor;

/** The assignors the expansion scenario compares. */
public enum ExpansionPeer {
    KSCALE("kscale", "KeyPreservingAssignor", KeyPreservingAssignor.class.getName()),
    COOPERATIVE_STICKY("cooperative-sticky", "CooperativeStickyAssignor", CooperativeStickyAssignor.class.getName()),
    RANGE("range", "RangeAssignor", RangeAssignor.class.getName());

    private final String cliName;
    private final String label;
    private final String className;

    ExpansionPeer(String cliName, String label, String className) {
        this.cliName = cliName;
        this.label = label;
        this.className = className;
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
