package io.kscale.it.stateful;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;

/** The assignors compared: ours with warmups, and Kafka's cooperative sticky one, which has none. */
public enum ScaleOutPeer {
    KSCALE("KeyPreservingAssignor + warmups", true),
    COOPERATIVE_STICKY("CooperativeStickyAssignor", false);

    private final String label;
    private final boolean stateful;

    ScaleOutPeer(String label, boolean stateful) {
        this.label = label;
        this.stateful = stateful;
    }

    public String label() {
        return label;
    }

    boolean stateful() {
        return stateful;
    }

    Map<String, Object> consumerSettings(String groupId, StatefulScaleOut.Settings settings) {
        Map<String, Object> props = new HashMap<>();
        props.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
        if (this == KSCALE) {
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, KeyPreservingAssignor.class.getName());
            props.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
            props.put(KeyPreservingAssignorConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, settings.acceptableRecoveryLag);
            props.put(KeyPreservingAssignorConfig.PROBING_INTERVAL_MS_CONFIG, settings.probingIntervalMs);
        } else {
            props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
        }
        return props;
    }
}
