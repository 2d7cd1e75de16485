package io.kscale.lab.scaleout;

import io.kscale.streams.WarmupTaskAssignor;
import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** The Kafka Streams task assignors the scale-out scenario compares. */
public enum ScaleOutPeer {
    /** kscale's assignor, set with {@code task.assignor.class}. */
    KSCALE("kscale", "WarmupTaskAssignor", WarmupTaskAssignor.class.getName()),
    /** Kafka's default: no {@code task.assignor.class}, so Streams runs its HighAvailabilityTaskAssignor. */
    HIGH_AVAILABILITY("high-availability", "HighAvailability (default)", null),
    /** Kafka's public KIP-924 sticky assignor: balances at once, without warmups. */
    STICKY("sticky", "StickyTaskAssignor",
            "org.apache.kafka.streams.processor.assignment.assignors.StickyTaskAssignor");

    private final String cliName;
    private final String label;
    private final String className;

    ScaleOutPeer(String cliName, String label, String className) {
        this.cliName = cliName;
        this.label = label;
        this.className = className;
    }

    /**
     * @param name a cli name, any case
     * @return the peer
     * @throws IllegalArgumentException naming the valid names if there is none of that name
     */
    public static ScaleOutPeer fromCliName(String name) {
        for (ScaleOutPeer peer : values()) {
            if (peer.cliName.equalsIgnoreCase(name.trim())) {
                return peer;
            }
        }
        throw new IllegalArgumentException("unknown assignor '" + name + "'; choose from "
                + Arrays.stream(values()).map(ScaleOutPeer::cliName).collect(Collectors.joining(", ")));
    }

    public String cliName() {
        return cliName;
    }

    public String label() {
        return label;
    }

    /** @return the value of {@code task.assignor.class}, or empty for Kafka's default */
    public Optional<String> taskAssignorClass() {
        return Optional.ofNullable(className);
    }
}
