package io.kscale.lab.batching;

import io.kscale.lab.cluster.KafkaCluster;
import io.kscale.lab.partitioner.PartitionerPeer;
import io.kscale.partitioner.UniformStickyBytesPartitionerConfig;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How well each partitioner batches (issue 19): on a real cluster, one topic per partitioner with
 * {@value BatchingSettings#PARTITIONS_PER_BROKER} partitions led by each broker (partition
 * {@code p} on broker {@code p % brokers}, one replica, so leadership is exactly balanced), a
 * producer with {@code acks=1} sends unkeyed records on each cell's schedule, and the run records
 * records per request, batch size, latency and throughput.
 *
 * <p>For each cell, each round runs every peer once, in the given order in even rounds and in
 * reverse in odd ones, so no peer always runs first on a cold JVM. The lab prints and writes the
 * returned runs; an integration test can assert on them.
 */
public final class BatchingScenario {

    private static final Logger log = LoggerFactory.getLogger(BatchingScenario.class);

    private final BatchingSettings settings;

    public BatchingScenario(BatchingSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs the whole matrix on the lab's cluster.
     *
     * @param onRun told of each run as it ends, e.g. to print progress
     */
    public List<BatchingRun> runOn(KafkaCluster cluster, Consumer<BatchingRun> onRun) {
        int brokers = cluster.brokerCount();
        int[] leaders = leaders(brokers);
        Map<String, Object> clientProperties = cluster.clientProperties();
        String runId = Long.toString(System.currentTimeMillis(), 36);
        Map<PartitionerPeer, String> topics = new LinkedHashMap<>();
        for (PartitionerPeer peer : settings.peers()) {
            topics.put(peer, "kscale-batching-" + runId + "-" + peer.cliName());
        }
        createTopics(clientProperties, topics.values(), leaders);
        awaitLeaders(clientProperties, topics.values(), leaders.length);
        List<BatchingRun> runs = new ArrayList<>();
        for (BatchingCell cell : settings.cells()) {
            for (int round = 0; round < settings.rounds(); round++) {
                for (PartitionerPeer peer : order(round)) {
                    log.info("{}, round {}: {} on {}", cell, round + 1, peer.label(), topics.get(peer));
                    PacedProducerRun.Result result = PacedProducerRun.run(producerProps(peer, cell, clientProperties),
                            topics.get(peer), leaders, brokers, cell.schedule(), settings.duration(),
                            settings.recordSize(), settings.seed() + round);
                    BatchingRun run = new BatchingRun(cell, peer, round, settings.recordSize(), result);
                    runs.add(run);
                    onRun.accept(run);
                }
            }
        }
        return runs;
    }

    /** The peers in round {@code round}'s order: as given in even rounds, reversed in odd ones. */
    List<PartitionerPeer> order(int round) {
        List<PartitionerPeer> order = new ArrayList<>(settings.peers());
        if (round % 2 == 1) {
            Collections.reverse(order);
        }
        return order;
    }

    /** Partition p's leader: broker p % brokers, so each broker leads the same number. */
    static int[] leaders(int brokers) {
        int[] leaders = new int[brokers * BatchingSettings.PARTITIONS_PER_BROKER];
        for (int p = 0; p < leaders.length; p++) {
            leaders[p] = p % brokers;
        }
        return leaders;
    }

    Map<String, Object> producerProps(PartitionerPeer peer, BatchingCell cell, Map<String, Object> clientProperties) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.LINGER_MS_CONFIG, cell.lingerMs());
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "kscale-lab-batching-" + peer.cliName());
        if (peer.partitionerClass() != null) {
            props.put(ProducerConfig.PARTITIONER_CLASS_CONFIG, peer.partitionerClass());
        }
        if (peer == PartitionerPeer.KSCALE && settings.stickyBatchSize() > 0) {
            props.put(UniformStickyBytesPartitionerConfig.STICKY_BATCH_SIZE_CONFIG, settings.stickyBatchSize());
        }
        return props;
    }

    /**
     * Writes one record to every partition and waits for its ack: a broker may answer
     * NOT_LEADER_OR_FOLLOWER for a moment after the topic is created, and the first run would
     * pay for the retries (seen here: a p99 of 1.7 s and inflated records per request).
     */
    private static void awaitLeaders(Map<String, Object> clientProperties, Iterable<String> topics, int partitions) {
        Map<String, Object> props = new HashMap<>(clientProperties);
        props.put(ProducerConfig.ACKS_CONFIG, "1");
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "kscale-lab-batching-warm-up");
        List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (String topic : topics) {
                for (int p = 0; p < partitions; p++) {
                    acks.add(producer.send(new ProducerRecord<>(topic, p, null, new byte[0])));
                }
            }
            for (Future<RecordMetadata> ack : acks) {
                ack.get(60, TimeUnit.SECONDS);
            }
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("The batching topics " + topics + " did not take a write", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void createTopics(Map<String, Object> clientProperties, Iterable<String> names, int[] leaders) {
        Map<Integer, List<Integer>> assignment = new HashMap<>();
        for (int p = 0; p < leaders.length; p++) {
            assignment.put(p, List.of(leaders[p]));
        }
        List<NewTopic> topics = new ArrayList<>();
        names.forEach(name -> topics.add(new NewTopic(name, assignment)));
        try (Admin admin = Admin.create(clientProperties)) {
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot create the batching topics " + names, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
