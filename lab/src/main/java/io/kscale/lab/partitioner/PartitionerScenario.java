package io.kscale.lab.partitioner;

import io.kscale.lab.cluster.KafkaCluster;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * KIP-794's experiment, on a real cluster: one broker answers produce requests later than the
 * others, and a throttled producer with {@code linger.ms=0} sends unkeyed 512-byte records to a
 * topic with one partition led by each broker. A partitioner that switches on every new batch
 * (KIP-480) gives the slow broker's partition more data; a uniform one does not.
 *
 * <p>Each peer gets a fresh topic; with {@code rounds > 1} the order of peers alternates, so no
 * peer always runs first on a cold cluster. The lab prints and plots the returned runs; the
 * integration test asserts on them.
 */
public final class PartitionerScenario {

    private static final Logger log = LoggerFactory.getLogger(PartitionerScenario.class);

    private final PartitionerSettings settings;

    public PartitionerScenario(PartitionerSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs every peer on the lab's own cluster, slowing {@link PartitionerSettings#slowBroker()}
     * through its latency proxy for the whole run.
     */
    public List<PartitionerRun> runOn(KafkaCluster cluster) {
        cluster.setLatency(settings.slowBroker(), settings.addedLatency());
        try {
            return runAll(cluster.clientProperties(), Optional.of(cluster.brokerCount()));
        } finally {
            cluster.setLatency(settings.slowBroker(), Duration.ZERO);
        }
    }

    /**
     * Runs every peer on a user's cluster: no latency is added, and the topics' leaders are
     * wherever the cluster puts them.
     */
    public List<PartitionerRun> runOn(Map<String, Object> clientProperties) {
        return runAll(clientProperties, Optional.empty());
    }

    private List<PartitionerRun> runAll(Map<String, Object> clientProperties, Optional<Integer> brokers) {
        List<PartitionerRun> runs = new ArrayList<>();
        String runId = Long.toString(System.currentTimeMillis(), 36);
        for (int round = 0; round < settings.rounds(); round++) {
            List<PartitionerPeer> order = new ArrayList<>(settings.peers());
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (PartitionerPeer peer : order) {
                String topic = "kscale-partitioner-" + runId + "-" + round + "-" + peer.cliName();
                createTopic(clientProperties, topic, brokers);
                log.info("Round {}: {} on topic {} for {} s", round + 1, peer.label(), topic,
                        settings.duration().toSeconds());
                runs.add(new PartitionerRun(peer, round, run(peer, clientProperties, topic, round)));
            }
        }
        return runs;
    }

    private ThrottledProducerRun.Result run(PartitionerPeer peer, Map<String, Object> clientProperties, String topic,
            int round) {
        Map<String, Object> props = producerProps(peer, clientProperties);
        long seed = settings.seed() + round;
        if (peer.ownJvm()) {
            return Kip480Jvm.run(props, topic, settings.partitions(), settings.recordSize(), settings.bytesPerSecond(),
                    settings.duration(), seed, settings.workDir());
        }
        return ThrottledProducerRun.run(props, topic, settings.partitions(), settings.recordSize(),
                settings.bytesPerSecond(), settings.duration(), seed);
    }

    Map<String, Object> producerProps(PartitionerPeer peer, Map<String, Object> clientProperties) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.LINGER_MS_CONFIG, settings.lingerMs());
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "kscale-lab-" + peer.cliName());
        if (peer.partitionerClass() != null) {
            props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, peer.partitionerClass());
        }
        if (peer == PartitionerPeer.KSCALE && settings.stickyBatchSize() > 0) {
            props.put("partitioner.sticky.batch.size", settings.stickyBatchSize());
        }
        props.putAll(settings.extraProducerProperties());
        return props;
    }

    /** One partition per broker in turn (partition i led by broker i % N) on the lab's cluster. */
    private void createTopic(Map<String, Object> clientProperties, String topic, Optional<Integer> brokers) {
        NewTopic newTopic;
        if (brokers.isPresent()) {
            Map<Integer, List<Integer>> assignment = new HashMap<>();
            for (int p = 0; p < settings.partitions(); p++) {
                assignment.put(p, List.of(p % brokers.get()));
            }
            newTopic = new NewTopic(topic, assignment);
        } else {
            newTopic = new NewTopic(topic, Optional.of(settings.partitions()), Optional.empty());
        }
        try (Admin admin = Admin.create(clientProperties)) {
            admin.createTopics(List.of(newTopic)).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create topic " + topic, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public PartitionerSettings settings() {
        return settings;
    }

    /** Where child JVM logs go. */
    Path workDir() {
        return settings.workDir();
    }
}
