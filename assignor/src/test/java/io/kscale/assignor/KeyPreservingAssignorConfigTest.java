package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.layout.CoPartitioning;
import io.kscale.assignor.internals.layout.ExpansionPolicy;
import io.kscale.assignor.internals.leader.UnreadableStorePolicy;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyPreservingAssignorConfigTest {

    @Test
    void shouldHaveDefaults() {
        KeyPreservingAssignorConfig config = new KeyPreservingAssignorConfig(Map.of("group.id", "g", "unknown.key", 1));
        assertThat(config.taskCounts()).isEmpty();
        assertThat(config.expansionPolicy()).isEqualTo(ExpansionPolicy.KEEP);
        assertThat(config.coPartitioning()).isEqualTo(CoPartitioning.BY_TASK_COUNT);
        assertThat(config.layoutStoreEnabled()).isTrue();
        assertThat(config.layoutStoreTopic()).isEqualTo("kscale-assignor-layouts");
        assertThat(config.layoutStoreReplicationFactor()).isEqualTo((short) -1);
        assertThat(config.layoutStoreTimeout()).isEqualTo(Duration.ofSeconds(5));
        assertThat(config.layoutForgetAfterMs()).isEqualTo(Duration.ofHours(24).toMillis());
        assertThat(config.unreadableStorePolicy()).isEqualTo(UnreadableStorePolicy.HOLD);
        assertThat(config.leaderSettings().unreadableStorePolicy()).isEqualTo(UnreadableStorePolicy.HOLD);
        assertThat(new KeyPreservingAssignorConfig(Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG,
                "Provisional")).leaderSettings().unreadableStorePolicy()).isEqualTo(UnreadableStorePolicy.PROVISIONAL);
        assertThat(config.groupId()).isEqualTo("g");
        assertThat(config.taskStateListener()).isEmpty();
        assertThat(config.acceptableRecoveryLag()).isEqualTo(10_000L);
        assertThat(config.maxWarmups()).isEqualTo(2);
        assertThat(config.probingInterval()).isEqualTo(Duration.ofMinutes(10));
        assertThat(config.placementSettings().standbyCount()).isZero();
    }

    @Test
    void shouldPassTheWarmupSettingsToThePlacementEngine() {
        KeyPreservingAssignorConfig config = new KeyPreservingAssignorConfig(Map.of(
                KeyPreservingAssignorConfig.ACCEPTABLE_RECOVERY_LAG_CONFIG, "0",
                KeyPreservingAssignorConfig.MAX_WARMUPS_CONFIG, 5,
                KeyPreservingAssignorConfig.PROBING_INTERVAL_MS_CONFIG, "60000"));
        assertThat(config.placementSettings().acceptableRecoveryLag()).isZero();
        assertThat(config.placementSettings().maxWarmups()).isEqualTo(5);
        assertThat(config.placementSettings().probingInterval()).isEqualTo(Duration.ofMinutes(1));
    }

    /**
     * Issue 11: the store's I/O runs inside the leader's rebalance, so its budget must fit well
     * within it (a third of request.timeout.ms, which bounds how long the other members wait in
     * SyncGroup, and of max.poll.interval.ms, the rebalance timeout). Before the fix any value up
     * to 300000 ms was taken, per call, so a failing store could hold a rebalance for minutes.
     */
    @Test
    void shouldRejectAStoreBudgetThatDoesNotFitWellWithinTheRebalance() {
        String key = KeyPreservingAssignorConfig.LAYOUT_STORE_TIMEOUT_MS_CONFIG;

        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(key, 20_000)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key).hasMessageContaining("20000")
                .hasMessageContaining("between 100 and 10000").hasMessageContaining("request.timeout.ms");
        assertThat(new KeyPreservingAssignorConfig(Map.of(key, 20_000, "request.timeout.ms", "60000")).layoutStoreTimeout())
                .as("a longer request timeout allows a larger budget").isEqualTo(Duration.ofSeconds(20));
        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(key, 5_000, "max.poll.interval.ms", 9_000)))
                .isInstanceOf(ConfigException.class).hasMessageContaining("between 100 and 3000")
                .hasMessageContaining("max.poll.interval.ms");
        assertThat(new KeyPreservingAssignorConfig(Map.of("max.poll.interval.ms", 9_000)).layoutStoreTimeout())
                .as("the default is clamped, not rejected: the user did not set it").isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void shouldParseTheForgetGracePeriodAndRejectANegativeOne() {
        assertThat(new KeyPreservingAssignorConfig(Map.of(KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG, "0"))
                .layoutForgetAfterMs()).isZero();
        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(
                KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG, -1L)))
                .isInstanceOf(ConfigException.class).hasMessageContaining(KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG);
        assertThat(KeyPreservingAssignorConfig.configDef().configKeys().get(KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG)
                .documentation).contains(KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG,
                KeyPreservingAssignorConfig.LAYOUT_STORE_TOPIC_CONFIG);
    }

    /** A listener named by class, as from a properties file. */
    public static final class NamedListener implements TaskStateListener {
        @Override
        public Map<TaskRef, Long> lags() {
            return Map.of();
        }

        @Override
        public void onWarmup(java.util.Set<TaskRef> tasks) {
        }

        @Override
        public void onDrop(java.util.Set<TaskRef> tasks) {
        }
    }

    @Test
    void shouldTakeTheListenerAsAnInstanceOrAClass() {
        TaskStateListener instance = new NamedListener();
        assertThat(new KeyPreservingAssignorConfig(Map.of(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG, instance))
                .taskStateListener()).containsSame(instance);
        assertThat(new KeyPreservingAssignorConfig(Map.of(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG,
                NamedListener.class.getName())).taskStateListener()).hasValueSatisfying(listener ->
                assertThat(listener).isInstanceOf(NamedListener.class));
        assertThat(new KeyPreservingAssignorConfig(Map.of(KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG,
                NamedListener.class)).taskStateListener()).isPresent();
    }

    /** A listener class the assignor cannot build: its only constructor takes an argument. */
    public static final class ListenerWithoutNoArgConstructor implements TaskStateListener {
        public ListenerWithoutNoArgConstructor(String name) {
        }

        @Override
        public Map<TaskRef, Long> lags() {
            return Map.of();
        }

        @Override
        public void onWarmup(java.util.Set<TaskRef> tasks) {
        }

        @Override
        public void onDrop(java.util.Set<TaskRef> tasks) {
        }
    }

    @Test
    void shouldRejectAListenerClassWithoutANoArgConstructorNamingKeyAndClass() {
        String key = KeyPreservingAssignorConfig.TASK_STATE_LISTENER_CONFIG;
        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(key, ListenerWithoutNoArgConstructor.class)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(ListenerWithoutNoArgConstructor.class.getName())
                .hasMessageContaining("public no-argument constructor");
    }

    @Test
    void shouldParseTaskCountsAndPolicyInAnyCase() {
        KeyPreservingAssignorConfig config = new KeyPreservingAssignorConfig(Map.of(
                KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG, "orders:4, payments.eu:8",
                KeyPreservingAssignorConfig.EXPANSION_POLICY_CONFIG, "Rebase",
                KeyPreservingAssignorConfig.CO_PARTITIONING_CONFIG, "None"));
        assertThat(config.taskCounts()).containsExactly(Map.entry("orders", 4), Map.entry("payments.eu", 8));
        assertThat(config.expansionPolicy()).isEqualTo(ExpansionPolicy.REBASE);
        assertThat(config.coPartitioning()).isEqualTo(CoPartitioning.NONE);
    }

    @ParameterizedTest
    @CsvSource(delimiter = ';', value = {
        "kscale.assignor.task.counts; orders; must be topic:count",
        "kscale.assignor.task.counts; orders:0; between 1 and",
        "kscale.assignor.task.counts; orders:x; between 1 and",
        "kscale.assignor.task.counts; bad topic!:4; legal topic name",
        "kscale.assignor.task.counts; orders:4,orders:8; appears twice",
        "kscale.assignor.expansion.policy; grow; KEEP, REBASE",
        "kscale.assignor.co.partitioning; by-topic; BY-TASK-COUNT, NONE",
        "kscale.assignor.layout.store.topic; no spaces; legal topic name",
        "kscale.assignor.layout.store.replication.factor; 0; -1 (broker default) or at least 1",
        "kscale.assignor.layout.store.timeout.ms; 50; at least 100",
        "kscale.assignor.layout.store.enabled; maybe; Expected value to be either true or false",
        "kscale.assignor.acceptable.recovery.lag; -1; at least 0",
        "kscale.assignor.max.warmups; 0; at least 1",
        "kscale.assignor.probing.interval.ms; 59999; at least 60000",
        "kscale.assignor.task.state.listener; java.lang.String; must implement io.kscale.assignor.TaskStateListener",
        "kscale.assignor.task.state.listener; no.such.Listener; Class no.such.Listener could not be found",
    })
    void shouldRejectABadValueNamingKeyValueAndWhatIsAllowed(String key, String value, String allowed) {
        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(key, value)))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key)
                .hasMessageContaining(value.replace(",", ", ")) // a list value is printed as [a, b]
                .hasMessageContaining(allowed);
    }

    @Test
    void shouldFailAtConfigureOfTheAssignor() {
        KeyPreservingAssignor assignor = new KeyPreservingAssignor();
        assertThatThrownBy(() -> assignor.configure(Map.of(KeyPreservingAssignorConfig.EXPANSION_POLICY_CONFIG, "grow")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(KeyPreservingAssignorConfig.EXPANSION_POLICY_CONFIG);
    }

    /** Issue 17, finding 1: what the group does while the layout store cannot be read; a bad value names the choices. */
    @Test
    void shouldRejectAnUnknownUnreadableStorePolicy() {
        String key = KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG;

        assertThatThrownBy(() -> new KeyPreservingAssignorConfig(Map.of(key, "wait")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(key).hasMessageContaining("wait")
                .hasMessageContaining("HOLD").hasMessageContaining("PROVISIONAL");
    }
}
