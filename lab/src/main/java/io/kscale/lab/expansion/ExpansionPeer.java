package io.kscale.lab.expansion;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.lab.cluster.ServerAssignorPlugin;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.RangeAssignor;

/**
 * The assignors the expansion scenario compares. Classic peers run in the consumer
 * ({@code partition.assignment.strategy}); the {@code server-*} peers run in the broker
 * (KIP-848: {@code group.protocol=consumer}, {@code group.remote.assignor}), and the cluster must
 * list them in {@code group.consumer.assignors} ({@link ServerAssignorPlugin#assignorsSetting()}).
 */
public enum ExpansionPeer {
    /** kscale's assignor, polled through {@link io.kscale.assignor.ExpansionBarrier} as README says. */
    KSCALE("kscale", "KeyPreservingAssignor", GroupProtocol.CLASSIC, KeyPreservingAssignor.class.getName(), true),
    /** kscale's assignor with a plain {@code consumer.poll}: shows what the barrier adds. */
    KSCALE_NO_BARRIER("kscale-no-barrier", "KeyPreserving, plain poll", GroupProtocol.CLASSIC,
            KeyPreservingAssignor.class.getName(), false),
    COOPERATIVE_STICKY("cooperative-sticky", "CooperativeStickyAssignor", GroupProtocol.CLASSIC,
            CooperativeStickyAssignor.class.getName(), false),
    RANGE("range", "RangeAssignor", GroupProtocol.CLASSIC, RangeAssignor.class.getName(), false),
    /**
     * kscale's broker-side assignor ({@value ServerAssignorPlugin#SERVER_ASSIGNOR_NAME}), polled
     * through {@link io.kscale.assignor.ExpansionBarrier}, which reads each topic's T from the
     * brokers' task count topic on this protocol.
     */
    SERVER_KSCALE("server-kscale", "KeyPreserving (broker)", GroupProtocol.CONSUMER,
            ServerAssignorPlugin.SERVER_ASSIGNOR_NAME, true),
    /** Kafka's broker-side default, {@code UniformAssignor}. */
    SERVER_UNIFORM("server-uniform", "uniform (broker)", GroupProtocol.CONSUMER, "uniform", false),
    /** Kafka's broker-side {@code RangeAssignor}. */
    SERVER_RANGE("server-range", "range (broker)", GroupProtocol.CONSUMER, "range", false);

    private final String cliName;
    private final String label;
    private final GroupProtocol protocol;
    private final String assignor;
    private final boolean usesBarrier;

    ExpansionPeer(String cliName, String label, GroupProtocol protocol, String assignor, boolean usesBarrier) {
        this.cliName = cliName;
        this.label = label;
        this.protocol = protocol;
        this.assignor = assignor;
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
        throw new IllegalArgumentException("unknown assignor '" + name + "'; choose from "
                + Arrays.stream(values()).map(ExpansionPeer::cliName).collect(Collectors.joining(", ")));
    }

    /** @return every peer of the protocol, in declaration order: the scenario's default for it */
    public static List<ExpansionPeer> of(GroupProtocol protocol) {
        return Arrays.stream(values()).filter(peer -> peer.protocol == protocol).collect(Collectors.toList());
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

    /** @return the group protocol the members speak */
    public GroupProtocol protocol() {
        return protocol;
    }

    /** @return whether the broker assigns (KIP-848), so the cluster must offer the assignor */
    public boolean isServerSide() {
        return protocol == GroupProtocol.CONSUMER;
    }

    /**
     * @return the value of {@code partition.assignment.strategy} for a classic peer, or of
     *     {@code group.remote.assignor} for a server-side one
     */
    public String assignor() {
        return assignor;
    }

    /** @return the consumer settings that pick this assignor */
    public Map<String, Object> consumerSettings() {
        if (isServerSide()) {
            return Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol.name().toLowerCase(java.util.Locale.ROOT),
                    ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, assignor);
        }
        return Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, assignor);
    }
}
