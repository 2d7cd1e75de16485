package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.assignor.internals.server.InMemoryTaskCountStore;
import io.kscale.assignor.internals.server.NeverLoadedTaskCountStore;
import io.kscale.assignor.internals.server.ServerAssignorState;
import io.kscale.assignor.internals.server.ServerChecks;
import io.kscale.assignor.internals.server.TaskCount;
import io.kscale.assignor.internals.server.TaskCountStore;
import io.kscale.assignor.internals.server.TestGroup;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.junit.jupiter.api.Test;

class KeyPreservingServerAssignorTest {

    private static final Uuid ORDERS = new Uuid(7, 7);

    private final List<KeyPreservingServerAssignorConfig> made = new ArrayList<>();
    private final InMemoryTaskCountStore store = new InMemoryTaskCountStore();

    private KeyPreservingServerAssignor assignor() {
        return new KeyPreservingServerAssignor((brokerConfigs, config) -> {
            made.add(config);
            return store;
        }, true, ServerAssignorState.detached(), System::nanoTime);
    }

    @Test
    void shouldBeNamedForGroupRemoteAssignor() {
        assertThat(new KeyPreservingServerAssignor().name()).isEqualTo("kscale-key-preserving")
                .isEqualTo(KeyPreservingServerAssignor.NAME);
    }

    @Test
    void shouldStartTheStoreInConfigureOnABrokerSoThatItLoadsWhileTheBrokerStarts() {
        KeyPreservingServerAssignor assignor = assignor();
        assignor.configure(Map.of(KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG, "counts",
                "process.roles", "broker,controller"));
        assertThat(made).hasSize(1);

        assignor.configure(Map.of(KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG, "counts",
                "process.roles", "broker"));
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS);
        assignor.assign(group.spec(), group.describer());
        assertThat(made).as("one store per instance, made once").hasSize(1);
    }

    @Test
    void shouldReadTheRolesOfAParsedListToo() {
        KeyPreservingServerAssignor assignor = assignor();
        assignor.configure(Map.of("process.roles", java.util.List.of("controller", "broker")));

        assertThat(made).hasSize(1);
    }

    @Test
    void shouldNotStartTheStoreInConfigureOnAControllerOnlyNode() {
        KeyPreservingServerAssignor assignor = assignor();
        assignor.configure(Map.of("process.roles", "controller"));

        assertThat(made).isEmpty();
    }

    @Test
    void shouldStartTheStoreOnTheFirstAssignmentNotInConfigureWhereTheRolesAreUnknown() {
        KeyPreservingServerAssignor assignor = assignor();
        assignor.configure(Map.of(KeyPreservingServerAssignorConfig.STORE_TOPIC_CONFIG, "counts"));
        assertThat(made).isEmpty();

        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS).member("m1", ORDERS);
        GroupAssignment first = assignor.assign(group.spec(), group.describer());
        assignor.assign(group.apply(first).spec(), group.describer());

        assertThat(made).hasSize(1);
        assertThat(made.get(0).storeTopic()).isEqualTo("counts");
        ServerChecks.assertComplete(group, first, Set.of(ORDERS));
        assertThat(assignor.metrics().assignmentsTotal()).isEqualTo(2);
    }

    @Test
    void shouldRejectABadSettingAtConfigure() {
        assertThatThrownBy(() -> assignor().configure(Map.of(
                KeyPreservingServerAssignorConfig.STORE_RETRY_BACKOFF_MS_CONFIG, "5")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("kscale.server.assignor.store.retry.backoff.ms");
    }

    @Test
    void shouldHoldEveryTopicWhileTheStoreKnowsNothingAndCountItInJmx() throws Exception {
        KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor(
                (brokerConfigs, config) -> new NeverLoadedTaskCountStore(), false, ServerAssignorState.shared(), System::nanoTime);
        assignor.configure(Map.of());
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS);
        assertThat(assignor.assign(group.spec(), group.describer()).members().get("m0").partitions()).isEmpty();
        assertThat(assignor.metrics().heldTopics()).isPositive();
        assertThat(java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(
                new javax.management.ObjectName("kscale.server:type=key-preserving-server-assignor"))).isTrue();
        assignor.close();
    }

    @Test
    void shouldCloseTheStoreAndHoldEverythingAfterwards() {
        KeyPreservingServerAssignor assignor = assignor();
        assignor.configure(Map.of());
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS);
        assignor.assign(group.spec(), group.describer());
        assignor.close();
        assignor.close();
        assertThat(store.isClosed()).isTrue();
        assertThat(assignor.assign(group.spec(), group.describer()).members().get("m0").partitions()).isEmpty();
        assertThat(made).hasSize(1);
    }

    @Test
    void shouldHoldEveryTopicWithoutFailingTheGroupWhileTheStoreCannotStartAndBackOffMoreEachTime() {
        int[] attempts = {0};
        long[] now = {0};
        ServerAssignorState state = ServerAssignorState.detached();
        KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor((brokerConfigs, config) -> {
            attempts[0]++;
            throw new NoClassDefFoundError("org/apache/kafka/clients/admin/Admin");
        }, true, state, () -> now[0]);
        assignor.configure(Map.of(KeyPreservingServerAssignorConfig.STORE_RETRY_BACKOFF_MS_CONFIG, "100"));
        Uuid payments = new Uuid(8, 8);
        // m0 holds orders 0-3 and payments 0; orders grew to 8, payments to 2, and m1 joined.
        TestGroup group = new TestGroup().topic(ORDERS, 8).topic(payments, 2)
                .member("m0", ORDERS, payments).member("m1", ORDERS, payments)
                .target("m0", Map.of(ORDERS, Set.of(0, 1, 2, 3), payments, Set.of(0)));

        GroupAssignment held = assignor.assign(group.spec(), group.describer());

        assertThat(held.members().get("m0").partitions())
                .isEqualTo(Map.of(ORDERS, Set.of(0, 1, 2, 3), payments, Set.of(0)));
        assertThat(held.members().get("m1").partitions()).isEmpty();
        assertThat(state.metrics().assignmentFallbacksTotal()).as("held, not fallen back").isZero();
        assertThat(state.metrics().storeStartFailuresTotal()).isEqualTo(1);
        for (long waited : new long[] {100, 200, 400}) {
            now[0] += waited * 1_000_000L - 1;
            assignor.assign(group.spec(), group.describer());
            assertThat(attempts[0]).as("not before " + waited + " ms").isEqualTo(state.metrics().storeStartFailuresTotal());
            now[0] += 1;
            assignor.assign(group.spec(), group.describer());
        }
        assertThat(attempts[0]).isEqualTo(4);
        assertThat(state.metrics().storeStartFailuresTotal()).isEqualTo(4);
    }

    @Test
    void shouldRetryAStoreThatFailedToStartAfterTheBackoff() {
        int[] attempts = {0};
        long[] now = {0};
        KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor((brokerConfigs, config) -> {
            if (attempts[0]++ == 0) {
                throw new IllegalStateException("no listener");
            }
            return store;
        }, true, ServerAssignorState.detached(), () -> now[0]);
        assignor.configure(Map.of(KeyPreservingServerAssignorConfig.STORE_RETRY_BACKOFF_MS_CONFIG, "100"));
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("m0", ORDERS);
        assertThat(assignor.assign(group.spec(), group.describer()).members().get("m0").partitions()).isEmpty();
        now[0] += 99_000_000L;
        assertThat(assignor.assign(group.spec(), group.describer()).members().get("m0").partitions()).isEmpty();
        assertThat(attempts[0]).isEqualTo(1);
        now[0] += 1_000_000L;
        assertThat(assignor.assign(group.spec(), group.describer()).members().get("m0").partitions()).isNotEmpty();
        assertThat(attempts[0]).isEqualTo(2);
    }

    /**
     * Issue 25, finding 8: only a RuntimeException fell back; an Error (here from the store's
     * lookup, the first step of the placement) failed the group's assignment, and the next one
     * failed the same way. It now keeps the current targets, as an exception does, and is counted.
     */
    @Test
    void shouldKeepTheCurrentTargetsWhenThePlacementThrowsAnError() {
        for (Error error : List.of(new StackOverflowError("injected"), new OutOfMemoryError("injected"))) {
            ServerAssignorState state = ServerAssignorState.detached();
            TaskCountStore failing = new TaskCountStore() {
                @Override
                public TaskCount lookup(Uuid topicId) {
                    throw error;
                }

                @Override
                public int propose(Uuid topicId, int proposed, int partitionCount) {
                    throw error;
                }

                @Override
                public void close() {
                }
            };
            KeyPreservingServerAssignor assignor = new KeyPreservingServerAssignor((brokerConfigs, config) -> failing,
                    true, state, System::nanoTime);
            assignor.configure(Map.of());
            TestGroup group = new TestGroup().topic(ORDERS, 8).member("m0", ORDERS).member("m1", ORDERS)
                    .target("m0", Map.of(ORDERS, Set.of(0, 1)))
                    .target("m1", Map.of(ORDERS, Set.of(2, 3)));

            GroupAssignment assignment = assignor.assign(group.spec(), group.describer());

            assertThat(assignment.members().get("m0").partitions()).as(error.toString()).isEqualTo(Map.of(ORDERS, Set.of(0, 1)));
            assertThat(assignment.members().get("m1").partitions()).isEqualTo(Map.of(ORDERS, Set.of(2, 3)));
            assertThat(state.metrics().assignmentFallbacksTotal()).isEqualTo(1);
        }
    }
}
