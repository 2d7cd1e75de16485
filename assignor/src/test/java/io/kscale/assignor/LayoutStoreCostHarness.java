package io.kscale.assignor;

import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.store.Deadline;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.LayoutPersistence;
import io.kscale.assignor.internals.store.LayoutStore;
import io.kscale.assignor.internals.store.StoreClients;
import io.kscale.assignor.internals.time.Clock;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.RebalanceProtocol;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * What the layout store costs the leader's rebalance, before and after issue 11, in one run (a
 * measurement, not a test: it asserts nothing). "Before" is the call pattern the leader had: the
 * save inside {@code assign()}, fresh clients and a read from offset 0 per load, a timeout per
 * call (10 s by default; closing the clients came on top, up to 1 s each, which the emulation
 * here counts inside the timeout, so "before" is a little low); "after" is
 * {@link LayoutPersistence}: saves on the writer thread, one kept consumer, one budget per call
 * (5 s). Three cases, each alternating the two sides:
 * <ol>
 *   <li><b>healthy but slow saves</b>: 20 rebalances that each change the layout (the topic
 *       grows), against a store whose save takes 550 ms, the cost measured per layout-changing
 *       rebalance in the issue (120 such rebalances took 66 s against a real broker);</li>
 *   <li><b>failing store</b>: one rebalance after the whole group restarted (a load, then a save),
 *       against Kafka's real clients and a loopback port that refuses connections, with the
 *       default timeouts;</li>
 *   <li><b>loads</b>: records read by 50 loads while the store topic grows by 20 records of
 *       other groups between loads (over Kafka's MockConsumer).</li>
 * </ol>
 * Run from the assignor module after {@code mvn -o -q -pl assignor test-compile}:
 * <pre>{@code
 * mvn -o -q -pl assignor dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp assignor/target/test-classes:assignor/target/classes:$(cat /tmp/cp.txt) io.kscale.assignor.internals.store.LayoutStoreCostHarness
 * }</pre>
 */
public final class LayoutStoreCostHarness {

    private static final String ORDERS = "orders";

    private LayoutStoreCostHarness() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("case                                   before (sync, per call)   after (issue 11)");
        slowSaves();
        failingStore();
        loads();
    }

    private static void slowSaves() {
        int rebalances = 20;
        double[] before = new double[1];
        double[] after = new double[1];
        ExecutorService writer = Executors.newSingleThreadExecutor();
        for (int round = 0; round < 2; round++) {
            before[0] += layoutChangingRebalances(rebalances, Runnable::run) / 2;
            after[0] += layoutChangingRebalances(rebalances, writer) / 2;
        }
        writer.shutdownNow();
        print("save 550 ms, assign() per layout change", before[0], after[0], "ms");
    }

    /** @return mean ms per rebalance spent in the leader's assign() */
    private static double layoutChangingRebalances(int rebalances, Executor writer) {
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE,
                Map.of(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false)).topic(ORDERS, 2);
        group.join("a", ORDERS).assignor.layoutStore(new SlowStore(550), writer);
        group.join("b", ORDERS);
        group.rebalanceUntilStable();
        long total = 0;
        for (int i = 0; i < rebalances; i++) {
            group.topic(ORDERS, 2 * (i + 2)); // a multiple of T=2: EXPANDED, a new epoch
            long start = System.nanoTime();
            group.rebalance();
            total += System.nanoTime() - start;
            group.rebalanceUntilStable();
        }
        return total / 1e6 / rebalances;
    }

    private static void failingStore() throws IOException {
        double before = 0;
        double after = 0;
        try (Socket refusing = new Socket()) {
            refusing.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            Map<String, Object> consumer = new HashMap<>();
            consumer.put("bootstrap.servers", InetAddress.getLoopbackAddress().getHostAddress() + ":" + refusing.getLocalPort());
            consumer.put("group.id", "cost-harness");
            consumer.put("client.id", "cost-harness");
            ExecutorService writer = Executors.newSingleThreadExecutor();
            for (int round = 0; round < 2; round++) {
                before += restartRebalance(Duration.ofSeconds(10), consumer, Runnable::run, true) / 2;
                after += restartRebalance(Duration.ofSeconds(5), consumer, writer, false) / 2;
            }
            writer.shutdownNow();
        }
        print("failing store, load + save in one rebalance", before, after, "ms");
    }

    /** @return ms of one rebalance of a group whose members all restarted (load, then save) */
    private static double restartRebalance(Duration timeout, Map<String, Object> consumer, Executor writer,
                                           boolean freshClientsPerCall) {
        Supplier<KafkaLayoutStore> stores = () -> new KafkaLayoutStore("cost-harness", "kscale-assignor-layouts",
                (short) -1, timeout, consumer, KeyPreservingAssignor.STORE_ADVICE);
        LayoutStore store = freshClientsPerCall ? new FreshPerCall(stores) : stores.get();
        Map<String, Object> settings = new HashMap<>(consumer);
        settings.put(KeyPreservingAssignorConfig.LAYOUT_STORE_ENABLED_CONFIG, false);
        settings.put(KeyPreservingAssignorConfig.LAYOUT_STORE_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        GroupSimulator group = new GroupSimulator(RebalanceProtocol.COOPERATIVE, settings).topic(ORDERS, 4);
        KeyPreservingAssignor leader = group.join("a", ORDERS).assignor;
        leader.time(Clock.SYSTEM);
        leader.layoutStore(store, writer);
        long start = System.nanoTime();
        group.rebalance();
        double ms = (System.nanoTime() - start) / 1e6;
        store.close();
        return ms;
    }

    private static void loads() {
        int loads = 50;
        int perRound = 20;
        long[] read = new long[2];
        double[] ms = new double[2];
        for (int side = 0; side < 2; side++) {
            GrowingTopic topic = new GrowingTopic();
            KafkaLayoutStore kept = topic.store();
            long start = System.nanoTime();
            for (int i = 0; i < loads; i++) {
                topic.append(perRound);
                if (side == 0) {
                    KafkaLayoutStore fresh = topic.store(); // before: a new consumer per load, from offset 0
                    fresh.load();
                    read[side] += fresh.recordsRead();
                } else {
                    kept.load();
                }
            }
            ms[side] = (System.nanoTime() - start) / 1e6 / loads;
            if (side == 1) {
                read[side] = kept.recordsRead();
            }
        }
        print(loads + " loads, +" + perRound + " records each: records read", read[0], read[1], "records");
        print("  time per load (MockConsumer)", ms[0], ms[1], "ms");
    }

    private static void print(String name, double before, double after, String unit) {
        System.out.println(String.format(Locale.ROOT, "%-38s %12.1f %s %16.1f %s   (%.0fx)", name, before, unit, after,
                unit, after == 0 ? Double.POSITIVE_INFINITY : before / after));
    }

    /** A store whose save takes its time, as one round trip with new clients does; loads find nothing. */
    private static final class SlowStore implements LayoutStore {
        private final long saveMs;

        SlowStore(long saveMs) {
            this.saveMs = saveMs;
        }

        @Override
        public Loaded load(Deadline deadline) {
            return Loaded.NOTHING;
        }

        @Override
        public boolean save(GroupLayout layout, Deadline deadline) {
            try {
                Thread.sleep(saveMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return true;
        }
    }

    /** The call pattern before issue 11: new clients for every call, closed before it returns. */
    private static final class FreshPerCall implements LayoutStore {
        private final Supplier<KafkaLayoutStore> stores;

        FreshPerCall(Supplier<KafkaLayoutStore> stores) {
            this.stores = stores;
        }

        @Override
        public Loaded load(Deadline deadline) {
            KafkaLayoutStore store = stores.get();
            try {
                return store.load(deadline);
            } finally {
                store.close();
            }
        }

        @Override
        public boolean save(GroupLayout layout, Deadline deadline) {
            return stores.get().save(layout, deadline);
        }
    }

    /** The layout topic, shared by many groups, over a MockConsumer that every store of it reads. */
    private static final class GrowingTopic implements StoreClients {
        private static final TopicPartition PARTITION = new TopicPartition("kscale-assignor-layouts", 0);
        private final List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
        private final byte[] value = KafkaLayoutStore.recordValue(GroupLayout.of(1,
                List.of(io.kscale.assignor.internals.layout.TopicLayout.of(ORDERS, 4, 4))));

        void append(int count) {
            for (int i = 0; i < count; i++) {
                String group = i == count - 1 ? "cost-harness" : "other-" + i;
                records.add(new ConsumerRecord<>(PARTITION.topic(), 0, records.size(),
                        group.getBytes(StandardCharsets.UTF_8), value));
            }
        }

        KafkaLayoutStore store() {
            return new KafkaLayoutStore("cost-harness", PARTITION.topic(), (short) -1, Duration.ofSeconds(5),
                    Map.of("bootstrap.servers", "127.0.0.1:9"), KeyPreservingAssignor.STORE_ADVICE, this, Clock.SYSTEM);
        }

        @Override
        public Consumer<byte[], byte[]> consumer(Map<String, Object> settings) {
            MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest") {
                /** Hands the records from the position on, as a broker's fetch would. */
                private void feed() {
                    long from = position(PARTITION);
                    for (ConsumerRecord<byte[], byte[]> record : records.subList((int) from, records.size())) {
                        addRecord(record);
                    }
                }

                @Override
                public synchronized org.apache.kafka.clients.consumer.ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
                    updateEndOffsets(Map.of(PARTITION, (long) records.size()));
                    if (!assignment().isEmpty()) {
                        feed();
                    }
                    return super.poll(timeout);
                }

                @Override
                public synchronized Map<TopicPartition, Long> endOffsets(java.util.Collection<TopicPartition> partitions,
                                                                         Duration timeout) {
                    updateEndOffsets(Map.of(PARTITION, (long) records.size()));
                    return super.endOffsets(partitions, timeout);
                }
            };
            consumer.updatePartitions(PARTITION.topic(), List.of(new PartitionInfo(PARTITION.topic(), 0, null, null, null)));
            consumer.updateBeginningOffsets(Map.of(PARTITION, 0L));
            return consumer;
        }

        @Override
        public Producer<byte[], byte[]> producer(Map<String, Object> settings) {
            throw new UnsupportedOperationException("loads only");
        }

        @Override
        public Admin admin(Map<String, Object> settings) {
            throw new UnsupportedOperationException("loads only");
        }
    }
}
