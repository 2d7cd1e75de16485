package io.kscale.assignor;

import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * What the client-side plug-ins say to a consumer on {@code group.protocol=consumer} (KIP-848),
 * where the brokers assign partitions and no client-side assignor runs: the key-preserving
 * assignment is then the broker-side {@code io.kscale.assignor.KeyPreservingServerAssignor}'s,
 * which a consumer picks by name. Named here by strings only: the consumer adapter does not
 * depend on the server adapter (see {@code AdapterArchitectureTest}).
 */
final class ConsumerProtocol {

    /** The broker-side assignor's class, as listed in the brokers' {@code group.consumer.assignors}. */
    static final String SERVER_ASSIGNOR_CLASS = "io.kscale.assignor.KeyPreservingServerAssignor";
    /** The broker-side assignor's name, as a consumer picks it with {@code group.remote.assignor}. */
    static final String SERVER_ASSIGNOR_NAME = "kscale-key-preserving";

    /** How to get key-preserving assignment on this protocol: one sentence, for a WARN or an exception. */
    static final String SERVER_ASSIGNOR_SETUP = "list " + SERVER_ASSIGNOR_CLASS + " in the brokers' "
            + "group.consumer.assignors (its jar on every broker) and set " + ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG
            + "=" + SERVER_ASSIGNOR_NAME + " on the consumer";

    private ConsumerProtocol() {
    }

    /** @return whether the consumer settings choose {@code group.protocol=consumer} (in any case) */
    static boolean isChosenIn(Map<String, ?> configs) {
        Object protocol = configs.get(ConsumerConfig.GROUP_PROTOCOL_CONFIG);
        return protocol != null && "consumer".equals(protocol.toString().trim().toLowerCase(Locale.ROOT));
    }
}
