package io.kscale.streams;

import io.kscale.assignor.internals.placement.RestoreRateLearner;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The restore-rate history of the group leaders in this JVM, one {@link RestoreRateLearner} per
 * application id. Kafka Streams makes a new {@link WarmupTaskAssignor} for every rebalance, so
 * what the leader learns between rebalances has to outlive the assignor: it lives here, for as long
 * as the JVM. Several instances of one application in one JVM share their learner (one of them
 * leads at a time, on the same clock); a leader in another JVM has its own, and starts measuring.
 *
 * <p>Bounded: at most {@value #MAX_APPLICATIONS} application ids, the least recently used dropped
 * first (it then measures again, which is safe); each learner keeps one small entry per member of
 * the group. Thread-safe: stream threads of several applications may rebalance at once.
 */
final class LeaderLearners {

    /** The leaders of this JVM. */
    static final LeaderLearners JVM = new LeaderLearners();

    static final int MAX_APPLICATIONS = 64;

    private final Map<String, RestoreRateLearner> byApplication =
            new LinkedHashMap<String, RestoreRateLearner>(16, 0.75f, true) {
                @Override
                protected boolean removeEldestEntry(Map.Entry<String, RestoreRateLearner> eldest) {
                    return size() > MAX_APPLICATIONS;
                }
            };

    LeaderLearners() {
    }

    /**
     * @param applicationId the application id ({@code application.id}); "" if unknown
     * @return its learner, created on first use
     */
    synchronized RestoreRateLearner forApplication(String applicationId) {
        return byApplication.computeIfAbsent(applicationId, id -> new RestoreRateLearner());
    }

    /** @return how many applications it keeps a learner for (tests) */
    synchronized int size() {
        return byApplication.size();
    }
}
