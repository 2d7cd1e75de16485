package io.kscale.assignor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.store.Deadline;
import io.kscale.assignor.internals.store.LayoutStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.junit.jupiter.api.Test;

/**
 * Issue 11: how the leader uses the layout store. Before the fix it saved only in a rebalance
 * that changed the layout's epoch, so a failed first save was never repeated and the store never
 * held the topic's T; it saved inside {@code assign()}, so every layout change cost the rebalance a
 * save (and a failing store the whole timeout); and store failures were no metric.
 */
class LayoutPersistenceTest {

    private static final Map<String, Object> NO_STORE = Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
    private static final String ORDERS = "orders";

    @Test
    void shouldRetryAFailedSaveAtEveryRebalanceUntilItSucceeds() {
        ScriptedStore store = new ScriptedStore(2);
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS).assignor.layoutStore(store);

        group.rebalance();
        group.rebalance();
        assertThat(store.saved).as("two saves failed").isNull();
        group.rebalance();
        group.rebalance();

        assertThat(store.saved.topic(ORDERS)).contains(TopicLayout.of(ORDERS, 4, 4));
        assertThat(store.saves).as("one save per rebalance until one succeeded, none after").isEqualTo(3);
    }

    @Test
    void shouldSaveOnceWhenAMemberBecomesLeaderAndNotAgainWhileNothingChanges() {
        ScriptedStore store = new ScriptedStore(0);
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS).assignor.layoutStore(store);
        group.join("b", ORDERS).assignor.layoutStore(store);
        group.rebalanceUntilStable();
        int saves = store.saves;

        group.leave("a"); // b leads now: it cannot know what a stored
        group.rebalanceUntilStable();
        group.rebalance();

        assertThat(store.saves).isEqualTo(saves + 1);
    }

    @Test
    void shouldCountStoreFailuresAndTellTheAgeOfTheLastSave() {
        ScriptedStore store = new ScriptedStore(1);
        store.failLoads = true;
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        KeyPreservingAssignor leader = group.join("a", ORDERS).assignor;
        leader.layoutStore(store);

        group.rebalance(); // a failed load (nobody knows orders yet) and a failed save
        assertThat(leader.metrics().value("layout-store-failures-total")).isEqualTo(2.0);
        assertThat(leader.metrics().value("layout-store-last-success-age-ms")).as("never stored").isEqualTo(-1.0);

        group.rebalance();
        group.time.sleep(7_000);

        assertThat(leader.metrics().value("layout-store-failures-total")).isEqualTo(2.0);
        assertThat(leader.metrics().value("layout-store-last-success-age-ms")).isEqualTo(7_000.0);
    }

    @Test
    void shouldGiveTheLoadOneBudgetAndSaveOffTheRebalance() {
        ScriptedStore store = new ScriptedStore(0);
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        List<Runnable> writer = new ArrayList<>();
        group.join("a", ORDERS).assignor.layoutStore(store, writer::add);

        group.rebalance();

        assertThat(store.loadBudgets).as("one load in the rebalance, within the budget")
                .containsExactly(Duration.ofMillis(KeyPreservingAssignorConfig.LAYOUT_STORE_TIMEOUT_MS_DEFAULT));
        assertThat(store.saves).as("the save waits for the writer").isZero();
        writer.forEach(Runnable::run);
        assertThat(store.saved).isNotNull();
    }

    @Test
    void shouldNotWaitInsideAssignForASaveThatHangs() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ScriptedStore store = new ScriptedStore(0);
        store.blockSaves = release;
        ExecutorService writer = Executors.newSingleThreadExecutor();
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, NO_STORE).topic(ORDERS, 4);
        group.join("a", ORDERS).assignor.layoutStore(store, writer);
        try {
            assertTimeoutPreemptively(Duration.ofSeconds(10), group::rebalance, "assign() waited for the save");
            assertTimeoutPreemptively(Duration.ofSeconds(10), group::rebalance, "assign() waited for the save");
        } finally {
            release.countDown();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> store.saved != null);
        writer.shutdown();
        assertThat(store.saves).as("the second rebalance found the first save in progress: no second one").isEqualTo(1);
    }

    /** A store whose first saves fail, as with an ACL not granted yet; it records what it is asked. */
    static final class ScriptedStore implements LayoutStore {
        private int failuresLeft;
        volatile boolean failLoads;
        volatile CountDownLatch blockSaves;
        volatile int saves;
        volatile GroupLayout saved;
        final List<Duration> loadBudgets = new ArrayList<>();

        ScriptedStore(int failures) {
            this.failuresLeft = failures;
        }

        @Override
        public Loaded load(Deadline deadline) {
            loadBudgets.add(deadline.remaining());
            return failLoads ? Loaded.FAILED : saved == null ? Loaded.NOTHING : Loaded.of(saved);
        }

        @Override
        public boolean save(GroupLayout layout, Deadline deadline) {
            CountDownLatch block = blockSaves;
            if (block != null) {
                try {
                    block.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            saves++;
            if (failuresLeft > 0) {
                failuresLeft--;
                return false;
            }
            saved = layout;
            return true;
        }
    }
}
