package io.kscale.it.stateful;

import io.kscale.it.support.Topics;
import io.kscale.lab.cluster.KafkaCluster;
import java.util.Map;

/** The input topic of one run and its changelog: {@code tasks} partitions each, task t = partition t. */
final class StatefulTopics {

    private final String input;
    private final String changelog;
    private final int tasks;

    private StatefulTopics(String prefix, int tasks) {
        this.input = prefix + "-input";
        this.changelog = prefix + "-changelog";
        this.tasks = tasks;
    }

    /** Creates both topics; the changelog is compacted, as a state store's is. */
    static StatefulTopics create(KafkaCluster cluster, String prefix, int tasks) {
        StatefulTopics topics = new StatefulTopics(prefix, tasks);
        Topics.create(cluster, Topics.topic(topics.input, tasks, 1, Map.of()));
        Topics.create(cluster, Topics.topic(topics.changelog, tasks, 1, Map.of("cleanup.policy", "compact")));
        return topics;
    }

    String input() {
        return input;
    }

    String changelog() {
        return changelog;
    }

    int tasks() {
        return tasks;
    }
}
