package io.kscale.lab.partitioner;

import java.util.Locale;

/** A partitioner the scenario measures: kscale's, and the peers it is compared with. */
public enum PartitionerPeer {
    /** kscale: switches partition every partitioner.sticky.batch.size bytes, strictly uniform. */
    KSCALE("kscale UniformStickyBytesPartitioner", "io.kscale.partitioner.UniformStickyBytesPartitioner", false),
    /** Kafka 4.4's default (no partitioner.class): switches after batch.size bytes, adaptive. */
    BUILT_IN("Kafka 4.4 built-in", null, false),
    /** Kafka's RoundRobinPartitioner: a new partition for every record. */
    ROUND_ROBIN("RoundRobinPartitioner", "org.apache.kafka.clients.producer.RoundRobinPartitioner", false),
    /** KIP-480's sticky partitioner, switching on every new batch; kafka-clients 3.9.1 in a child JVM. */
    KIP_480("KIP-480 sticky (kafka-clients 3.9.1)", "org.apache.kafka.clients.producer.UniformStickyPartitioner", true);

    private final String label;
    private final String partitionerClass;
    private final boolean ownJvm;

    PartitionerPeer(String label, String partitionerClass, boolean ownJvm) {
        this.label = label;
        this.partitionerClass = partitionerClass;
        this.ownJvm = ownJvm;
    }

    public String label() {
        return label;
    }

    /** The partitioner.class value, or null for the producer's default. */
    public String partitionerClass() {
        return partitionerClass;
    }

    /** Whether it runs in a child JVM on another kafka-clients version. */
    public boolean ownJvm() {
        return ownJvm;
    }

    /** The command-line spelling: kscale, built-in, round-robin, kip-480. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static PartitionerPeer fromCliName(String name) {
        for (PartitionerPeer peer : values()) {
            if (peer.cliName().equalsIgnoreCase(name.trim())) {
                return peer;
            }
        }
        throw new IllegalArgumentException("Unknown partitioner '" + name + "'; expected kscale, built-in,"
                + " round-robin or kip-480");
    }
}
