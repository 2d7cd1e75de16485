package io.kscale.assignor.internals.store;

import io.kscale.assignor.internals.layout.TopicLayout;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The validators of the settings that name a store topic and its replication factor, shared by
 * the consumer assignor's and the broker-side assignor's {@code ConfigDef}s so that both accept
 * and reject the same values with the same words.
 */
public final class StoreSettingValidators {

    private StoreSettingValidators() {
    }

    /** @return a validator that accepts a legal Kafka topic name */
    public static ConfigDef.Validator topicName() {
        return new TopicName();
    }

    /**
     * @param max the most names the list may hold
     * @return a validator of a LIST setting that accepts up to {@code max} distinct legal topic
     *     names, or none
     */
    public static ConfigDef.Validator topicNames(int max) {
        return new TopicNames(max);
    }

    /** @return a validator that accepts -1 (the broker's default) or a factor of at least 1 */
    public static ConfigDef.Validator replicationFactor() {
        return new ReplicationFactor();
    }

    /** What a legal topic name is, for the validators' messages. */
    private static final String LEGAL_NAME = "1 to " + TopicLayout.MAX_NAME_LENGTH + " characters of [a-zA-Z0-9._-]";

    private static final class TopicName implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            // ConfigDef trims STRING values before validating them.
            String topic = (String) value;
            if (topic == null || !TopicLayout.isLegalName(topic)) {
                throw new ConfigException(name, value, "must be " + this + ": " + LEGAL_NAME);
            }
        }

        @Override
        public String toString() {
            return "a legal topic name";
        }
    }

    private static final class TopicNames implements ConfigDef.Validator {
        private final int max;

        TopicNames(int max) {
            this.max = max;
        }

        @Override
        public void ensureValid(String name, Object value) {
            @SuppressWarnings("unchecked")
            List<String> topics = (List<String>) value;
            if (topics.size() > max) {
                throw new ConfigException(name, value, "must be " + this + "; it lists " + topics.size());
            }
            Set<String> seen = new HashSet<>();
            for (String topic : topics) {
                if (topic == null || !TopicLayout.isLegalName(topic)) {
                    throw new ConfigException(name, value, "must be " + this + ", and '" + topic + "' is not one: "
                            + LEGAL_NAME);
                }
                if (!seen.add(topic)) {
                    throw new ConfigException(name, value, "must be " + this + ", and '" + topic + "' is listed twice");
                }
            }
        }

        @Override
        public String toString() {
            return "up to " + max + " distinct legal topic names, comma-separated, or empty";
        }
    }

    private static final class ReplicationFactor implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            short factor = (Short) value;
            if (factor != -1 && factor < 1) {
                throw new ConfigException(name, value, "must be -1 (broker default) or at least 1");
            }
        }

        @Override
        public String toString() {
            return "-1 or at least 1";
        }
    }
}
