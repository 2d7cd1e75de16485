package io.kscale.it.stateful;

import static org.awaitility.Awaitility.await;

import io.kscale.lab.cluster.KafkaCluster;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * One scale-out of the counting app on a real cluster: one member processes a preload, then,
 * while records keep coming, two members join; once the group is balanced (every member has its
 * share of tasks, each restored), writes stop and the counts are compared with the input.
 */
public final class StatefulScaleOut {

    /** The run's sizes; small, so that both peers run in well under a minute each. */
    public static final class Settings {
        public final int tasks = 6;
        public final int keys = 3_000;
        public final int preload = 50_000;
        public final int recordsPerSecond = 400;
        public final long acceptableRecoveryLag = 1_000;
        /** The smallest kscale.assignor.probing.interval.ms allowed. */
        public final long probingIntervalMs = 60_000;
        public final Duration balanceTimeout = Duration.ofSeconds(90);
        public final long seed = 441;
    }

    private final KafkaCluster cluster;
    private final Settings settings;
    private final Map<String, Object> clientProperties;

    public StatefulScaleOut(KafkaCluster cluster, Settings settings) {
        this.cluster = cluster;
        this.settings = settings;
        this.clientProperties = cluster.clientProperties();
    }

    public ScaleOutResult run(ScaleOutPeer peer) throws InterruptedException {
        String prefix = "stateful-" + peer.name().toLowerCase().replace('_', '-');
        String group = prefix + "-group";
        StatefulTopics topics = StatefulTopics.create(cluster, prefix, settings.tasks);
        HandOffLog log = new HandOffLog();
        List<CountingMember> members = new ArrayList<>();
        try (KeyedLoad load = new KeyedLoad(topics.input(), settings.keys, settings.seed, clientProperties);
                Admin admin = Admin.create(clientProperties)) {
            load.preload(settings.preload);
            members.add(member("m1", peer, group, topics, log));
            await("m1 processes the preload").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
                    .until(() -> healthy(members) && drained(admin, group, topics));
            load.startSteady(settings.recordsPerSecond);
            long scaleOutAt = System.currentTimeMillis();
            members.add(member("m2", peer, group, topics, log));
            members.add(member("m3", peer, group, topics, log));
            Optional<Long> balancedAt = Optional.empty();
            try {
                await("balanced").atMost(settings.balanceTimeout).pollInterval(Duration.ofMillis(100))
                        .until(() -> healthy(members) && balanced(members));
                balancedAt = Optional.of(System.currentTimeMillis());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                // Reported in the result: the test asserts on it.
            }
            load.stop();
            await("every record counted").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> healthy(members) && drained(admin, group, topics)
                            && members.stream().mapToInt(m -> m.readyTasks().size()).sum() == settings.tasks);
            List<Integer> tasksPerMember = members.stream().map(m -> m.readyTasks().size()).collect(Collectors.toList());
            List<Map<String, Long>> counts = members.stream().map(CountingMember::counts).collect(Collectors.toList());
            Map<String, Long> expected = InputCounts.read(topics, clientProperties);
            List<String> failures = members.stream().filter(m -> m.failure() != null)
                    .map(m -> m.name() + ": " + m.failure()).collect(Collectors.toList());
            return new ScaleOutResult(peer, log.events(), scaleOutAt, balancedAt, tasksPerMember, expected, counts,
                    log.processedWhileRestoring.get(), failures);
        } finally {
            members.forEach(CountingMember::close);
        }
    }

    private CountingMember member(String name, ScaleOutPeer peer, String group, StatefulTopics topics, HandOffLog log) {
        return new CountingMember(peer.name().toLowerCase() + "-" + name, topics,
                peer.consumerSettings(group, settings), peer.stateful(), log, clientProperties);
    }

    private static boolean healthy(List<CountingMember> members) {
        for (CountingMember member : members) {
            if (member.failure() != null) {
                throw new IllegalStateException(member.name() + " failed", member.failure());
            }
        }
        return true;
    }

    /** Every member has its share of the tasks, all of them ready, and every task is active somewhere. */
    private boolean balanced(List<CountingMember> members) {
        Set<Integer> all = new HashSet<>();
        int share = settings.tasks / members.size();
        for (CountingMember member : members) {
            Set<Integer> ready = member.readyTasks();
            if (ready.size() < share || ready.size() > share + 1) {
                return false;
            }
            all.addAll(ready);
        }
        return all.size() == settings.tasks;
    }

    /** The group has committed every input partition to its end. */
    private static boolean drained(Admin admin, String group, StatefulTopics topics)
            throws ExecutionException, InterruptedException {
        List<TopicPartition> partitions = IntStream.range(0, topics.tasks())
                .mapToObj(p -> new TopicPartition(topics.input(), p)).collect(Collectors.toList());
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
        Map<TopicPartition, OffsetSpec> latest = partitions.stream()
                .collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest()));
        var ends = admin.listOffsets(latest).all().get();
        return partitions.stream().allMatch(p -> committed.get(p) != null
                && committed.get(p).offset() == ends.get(p).offset());
    }
}
