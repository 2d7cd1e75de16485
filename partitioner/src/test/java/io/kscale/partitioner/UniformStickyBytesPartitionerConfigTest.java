package io.kscale.partitioner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;

class UniformStickyBytesPartitionerConfigTest {

    private static final String STICKY = UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG;
    private static final String IGNORE_KEYS = UniformStickyBytesPartitionerConfig.IGNORE_KEYS_CONFIG;
    private static final String BATCH_SIZE = ProducerConfig.BATCH_SIZE_CONFIG;
    private static final String METADATA_MAX_IDLE = ProducerConfig.METADATA_MAX_IDLE_CONFIG;

    private static UniformStickyBytesPartitionerConfig config(Object... keyValues) {
        Map<String, Object> props = new HashMap<>();
        // A partitioner receives every producer setting, unknown ones included.
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092");
        props.put("some.unknown.setting", new Object());
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return new UniformStickyBytesPartitionerConfig(props);
    }

    @Test
    void shouldUseProducerDefaultBatchSizeWhenNothingIsSet() {
        UniformStickyBytesPartitionerConfig config = config();
        assertThat(config.stickyBatchSize()).isEqualTo(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_DEFAULT).isZero();
        assertThat(config.stickyBytes()).isEqualTo(16384);
        assertThat(config.ignoreKeys()).isFalse();
    }

    @Test
    void shouldMatchKafkasBatchSizeDefault() {
        assertThat(ProducerConfig.configDef().defaultValues().get(BATCH_SIZE))
                .isEqualTo(UniformStickyBytesPartitionerConfig.PRODUCER_BATCH_SIZE_DEFAULT);
    }

    @Test
    void shouldUseBatchSizeWhenStickyBatchSizeIsZero() {
        assertThat(config(BATCH_SIZE, 32768).stickyBytes()).isEqualTo(32768);
        assertThat(config(BATCH_SIZE, " 32768 ").stickyBytes()).isEqualTo(32768);
        assertThat(config(BATCH_SIZE, 4096L).stickyBytes()).isEqualTo(4096);
        assertThat(config(STICKY, 0, BATCH_SIZE, "1000").stickyBytes()).isEqualTo(1000);
    }

    @Test
    void shouldUseOneByteStintsWhenBatchingIsOff() {
        assertThat(config(BATCH_SIZE, 0).stickyBytes()).isEqualTo(1);
    }

    @Test
    void shouldUseExplicitStickyBatchSizeApartFromBatchSize() {
        assertThat(config(STICKY, 65536, BATCH_SIZE, 16384).stickyBytes()).isEqualTo(65536);
        assertThat(config(STICKY, "512").stickyBytes()).isEqualTo(512);
        assertThat(config(STICKY, "512").stickyBatchSize()).isEqualTo(512);
    }

    @Test
    void shouldRejectNegativeStickyBatchSizeNamingKeyValueAndRange() {
        assertThatThrownBy(() -> config(STICKY, -1))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(STICKY)
                .hasMessageContaining("-1")
                .hasMessageContaining("at least 0");
    }

    @Test
    void shouldRejectNonNumericStickyBatchSize() {
        assertThatThrownBy(() -> config(STICKY, "16k"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(STICKY)
                .hasMessageContaining("16k");
    }

    @Test
    void shouldRejectInvalidBatchSize() {
        assertThatThrownBy(() -> config(BATCH_SIZE, -5))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BATCH_SIZE)
                .hasMessageContaining("-5");
        assertThatThrownBy(() -> config(BATCH_SIZE, 1L << 40))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(BATCH_SIZE);
    }

    @Test
    void shouldMatchKafkasMetadataMaxIdleDefaultAndMinimum() {
        assertThat(ProducerConfig.configDef().defaultValues().get(METADATA_MAX_IDLE))
                .isEqualTo(UniformStickyBytesPartitionerConfig.PRODUCER_METADATA_MAX_IDLE_MS_DEFAULT);
        assertThat(config().metadataMaxIdleMs()).isEqualTo(300_000);
        assertThat(ProducerConfig.configDef().configKeys().get(METADATA_MAX_IDLE).validator)
                .hasToString("[" + UniformStickyBytesPartitionerConfig.PRODUCER_METADATA_MAX_IDLE_MS_MIN + ",...]");
    }

    @Test
    void shouldReadMetadataMaxIdleAsTheProducerDoes() {
        assertThat(config(METADATA_MAX_IDLE, 60_000).metadataMaxIdleMs()).isEqualTo(60_000);
        assertThat(config(METADATA_MAX_IDLE, 60_000L).metadataMaxIdleMs()).isEqualTo(60_000);
        assertThat(config(METADATA_MAX_IDLE, " 60000 ").metadataMaxIdleMs()).isEqualTo(60_000);
        assertThatThrownBy(() -> config(METADATA_MAX_IDLE, 4999))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(METADATA_MAX_IDLE)
                .hasMessageContaining("4999")
                .hasMessageContaining("at least 5000");
        assertThatThrownBy(() -> config(METADATA_MAX_IDLE, "5 minutes"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(METADATA_MAX_IDLE);
    }

    @Test
    void shouldReadIgnoreKeysAsTheProducerDoes() {
        assertThat(config(IGNORE_KEYS, true).ignoreKeys()).isTrue();
        assertThat(config(IGNORE_KEYS, "true").ignoreKeys()).isTrue();
        assertThat(config(IGNORE_KEYS, "false").ignoreKeys()).isFalse();
        assertThatThrownBy(() -> config(IGNORE_KEYS, "maybe"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(IGNORE_KEYS);
    }

    @Test
    void shouldFailConfigureOnBadValue() {
        UniformStickyBytesPartitioner partitioner = new UniformStickyBytesPartitioner();
        assertThatThrownBy(() -> partitioner.configure(Map.of(STICKY, -3)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(STICKY)
                .hasMessageContaining("-3");
    }

    @Test
    void shouldDocumentBothSettings() {
        assertThat(UniformStickyBytesPartitionerConfig.configDef().names()).containsExactlyInAnyOrder(STICKY, IGNORE_KEYS);
        assertThat(UniformStickyBytesPartitionerConfig.configDef().toRst())
                .contains(STICKY)
                .contains("batch.size")
                .contains("[0,...]");
    }
}
