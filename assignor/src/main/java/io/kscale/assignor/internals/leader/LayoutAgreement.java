package io.kscale.assignor.internals.leader;

import io.kscale.assignor.KeyPreservingAssignor;
import io.kscale.assignor.KeyPreservingAssignorConfig;
import io.kscale.assignor.internals.layout.GroupLayout;
import io.kscale.assignor.internals.layout.LayoutChange;
import io.kscale.assignor.internals.layout.LayoutMerge;
import io.kscale.assignor.internals.layout.LayoutUpdate;
import io.kscale.assignor.internals.layout.MergeConflict;
import io.kscale.assignor.internals.layout.ProvisionalTopics;
import io.kscale.assignor.internals.layout.ReportedLayoutCheck;
import io.kscale.assignor.internals.layout.TopicLayout;
import io.kscale.assignor.internals.metrics.AssignorMetrics;
import io.kscale.assignor.internals.store.KafkaLayoutStore;
import io.kscale.assignor.internals.store.LayoutPersistence;
import io.kscale.assignor.internals.store.LayoutStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Cluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leader's second step (see {@link LeaderAssignment}): one layout from what the members and
 * the store report, brought up to date with the metadata. Used once, for one {@code assign()}.
 *
 * <p>In order: drop the reports the leader cannot trust ({@link ReportedLayoutCheck}: a task count
 * that is neither declared, nor the one the store or the leader holds, nor consistent with the
 * partition count; more partitions than the metadata has; an epoch that jumps ahead), counted and
 * logged with the members that sent them (issue 25); merge the members' other layouts; if a subscribed topic is in none of them (every member
 * restarted), add what the {@link LayoutStore} holds; apply the metadata's partition counts and
 * topic ids ({@link GroupLayout#withPartitionCounts(Map, Map, io.kscale.assignor.internals.layout.ExpansionPolicy,
 * Map)}: a topic whose id changed is a new topic); then forget what has been gone for
 * {@value KeyPreservingAssignorConfig#LAYOUT_FORGET_AFTER_MS_CONFIG} ({@link GroupLayout#withLiveTopics}).
 * Every change is logged and counted; the layout is stored unless the store is known to hold it
 * already (an empty one as a tombstone, see {@link KafkaLayoutStore}), off the rebalance's thread,
 * and retried at every rebalance until a save succeeds ({@link LayoutPersistence}).
 *
 * <p>Example: {@code events} was assigned with 8 partitions under id A; it is deleted and
 * re-created with 4 under id B, and {@code clicks.0001}, deleted yesterday, is subscribed by
 * nobody. The merge gives {@code events} T=8/8 id A and {@code clicks.0001} missing since
 * yesterday; the metadata makes {@code events} RECREATED, T=4/4 id B (a WARN), and the grace
 * period of 24 h having passed, {@code clicks.0001} is FORGOTTEN. The new layout is stored, and
 * {@link #recreated()} names {@code events}, whose old owners the placement then ignores.
 *
 * <p>When the store cannot be read (issue 17). The store is read when a subscribed topic is in no
 * member's layout, and also while a topic is provisional. If that read fails, a topic no member
 * knows (and with no declared count) cannot be placed safely: its T would come from the partition
 * count, and the store may hold another. {@link UnreadableStorePolicy#HOLD} leaves it out of the
 * layout, so it is not assigned ({@link #held()}); {@link UnreadableStorePolicy#PROVISIONAL} adds
 * it marked provisional. Either way an ERROR and the gauges say so, and {@link #storeRetryDelayMs()}
 * asks the members for a follow-up rebalance, with back-off; a layout with provisional topics is
 * never stored. Once a read succeeds, {@link ProvisionalTopics#resolve} lets the stored T win, an
 * affinity break (ERROR, {@code affinity-breaks-total}) if it differs. Example: after a full
 * restart, {@code orders} (stored T=4) has 16 partitions and the read times out: under
 * PROVISIONAL the group runs T=16 provisional; the next leader's read finds T=4, which replaces
 * it (ERROR: "T=16 ... the store holds T=4"), and the layout, now EXPANDED 4 -> 16 under T=4, is
 * stored. A stored layout that the writer found newer than the one it was to save
 * ({@link LayoutPersistence#takeNewer()}) is merged like a loaded one.
 */
public final class LayoutAgreement {

    private static final Logger log = LoggerFactory.getLogger(KeyPreservingAssignor.class);

    private final LeaderSettings settings;
    private final LayoutPersistence persistence;
    private final AssignorMetrics metrics;
    private final Set<String> recreated = new TreeSet<>();
    /** The reported layouts rejected in this rebalance, by identity. */
    private final Set<GroupLayout> rejected = Collections.newSetFromMap(new IdentityHashMap<>());
    private Set<String> held = Set.of();
    private long retryDelayMs = -1;

    public LayoutAgreement(LeaderSettings settings, LayoutPersistence persistence, AssignorMetrics metrics) {
        this.settings = settings;
        this.persistence = persistence;
        this.metrics = metrics;
    }

    /**
     * @param reportedBy the distinct layouts the members reported, each with the members that reported it
     * @param own the leader's own layout, from its last assignment; empty if it knows none
     * @param subscribed every topic some member subscribes to
     * @param metadata the leader's view of the cluster
     * @param nowMs the leader's clock, epoch ms
     * @return the group's layout for this rebalance
     */
    public GroupLayout agree(Map<GroupLayout, List<String>> reportedBy, GroupLayout own, Set<String> subscribed,
                             Cluster metadata, long nowMs) {
        Map<String, Integer> counts = partitionCounts(subscribed, metadata);
        LayoutStore.Loaded early = null;
        if (persistence.enabled() && needsStoreToCheck(reportedBy.keySet(), own)) {
            // The one read of this rebalance, reused below.
            early = persistence.load();
        }
        Optional<GroupLayout> storedNow = early != null && !early.failed() ? early.layout() : persistence.knownStored();
        List<GroupLayout> layouts = trusted(reportedBy, own, storedNow, metadata);
        LayoutMerge merge = GroupLayout.merge(layouts);
        boolean unknown = !ProvisionalTopics.unknown(merge.layout(), counts.keySet()).isEmpty();
        boolean provisional = !ProvisionalTopics.of(merge.layout()).isEmpty();
        Optional<GroupLayout> newer = persistence.takeNewer();
        LayoutStore.Loaded loaded = early;
        GroupLayout base = merge.layout();
        if (loaded == null && (unknown || provisional)) {
            // The only store I/O on this thread, once per rebalance, within one budget (LayoutPersistence).
            loaded = persistence.load();
        }
        if (loaded != null && (unknown || provisional)) {
            if (loaded.layout().isPresent()) {
                log.info("{}; read epoch {} from the layout store", unknown ? "No member knew the layout of every "
                        + "subscribed topic" : "Some topics were provisional", loaded.layout().get().epoch());
            }
            if (!loaded.failed()) {
                base = settle(base, loaded.layout());
            }
        }
        Optional<GroupLayout> stored = loaded != null ? loaded.layout() : newer;
        if (stored.isPresent()) {
            layouts.add(stored.get());
            layouts.add(base);
        }
        LayoutMerge merged = stored.isEmpty() && base == merge.layout() ? merge : GroupLayout.merge(layouts);
        for (MergeConflict conflict : merged.conflicts()) {
            log.warn(conflict.message());
        }
        boolean unreadable = loaded != null && loaded.failed();
        Set<String> unsafe = unreadable ? unsafeTopics(merged.layout(), counts.keySet()) : Set.of();
        held = settings.unreadableStorePolicy() == UnreadableStorePolicy.HOLD ? unsafe : Set.of();
        Map<String, Integer> placeable = counts;
        if (!held.isEmpty()) {
            placeable = new TreeMap<>(counts);
            placeable.keySet().removeAll(held);
        }
        LayoutUpdate update = merged.layout().withPartitionCounts(placeable, TopicIds.of(metadata, placeable.keySet()),
                settings.expansionPolicy(), settings.taskCounts());
        GroupLayout counted = update.layout();
        if (!unsafe.isEmpty() && held.isEmpty()) {
            counted = ProvisionalTopics.mark(counted, unsafe, true);
        }
        // A declared count is no guess: it confirms a provisional T (the DECLARED change applied it).
        counted = ProvisionalTopics.confirm(counted, settings.taskCounts().keySet());
        Set<String> marked = ProvisionalTopics.of(counted).keySet();
        // A provisional topic's ADDED is no news: reportUnsafe logs it at ERROR.
        update.changes().stream()
                .filter(change -> !(marked.contains(change.topic()) && change.kind() == LayoutChange.Kind.ADDED))
                .forEach(change -> report(change, metadata));
        LayoutUpdate retention = counted.withLiveTopics(liveTopics(counted, subscribed, metadata),
                nowMs, settings.layoutForgetAfterMs());
        retention.changes().forEach(change -> report(change, metadata));
        GroupLayout layout = retention.layout();
        reportUnsafe(layout, unreadable);
        // Every rebalance, not only those that change the epoch: a save that failed is retried, and
        // a new leader stores what it cannot know its predecessor stored (issue 11). The writer reads
        // the store before it saves, and never saves a provisional layout (issue 17).
        persistence.offer(layout);
        return layout;
    }

    /**
     * The reported layouts the leader may use ({@link ReportedLayoutCheck}): the others are dropped,
     * counted and logged at WARN with the members that sent them, once per layout and rebalance.
     */
    private List<GroupLayout> trusted(Map<GroupLayout, List<String>> reportedBy, GroupLayout own,
                                      Optional<GroupLayout> stored, Cluster metadata) {
        Set<String> topics = new HashSet<>();
        reportedBy.keySet().forEach(layout -> layout.topics().forEach(topic -> topics.add(topic.topic())));
        ReportedLayoutCheck check = new ReportedLayoutCheck(settings.taskCounts(), stored, own,
                partitionCounts(topics, metadata), settings.expansionPolicy());
        List<GroupLayout> accepted = new ArrayList<>(reportedBy.size());
        int rejectedReports = 0;
        for (Map.Entry<GroupLayout, List<String>> entry : reportedBy.entrySet()) {
            Optional<String> rejection = check.rejection(entry.getKey());
            if (rejection.isEmpty()) {
                accepted.add(entry.getKey());
                continue;
            }
            rejected.add(entry.getKey());
            List<String> members = entry.getValue();
            rejectedReports += Math.max(1, members.size());
            log.warn("Ignored the layout (epoch {}) reported by {} member(s) {}: {}. The leader goes on with the other "
                    + "reports{}, its own layout and the store, and tells these members the group's layout. A member "
                    + "whose settings ({}, {}) differ from the leader's, or a broken one, sends such reports (metric "
                    + "rejected-layout-reports-total).", entry.getKey().epoch(), members.size(), shortList(members),
                    rejection.get(), check.trustsAny() ? "" : " (this leader knows no layout yet: it checks reports "
                    + "against the metadata only)", KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG,
                    KeyPreservingAssignorConfig.EXPANSION_POLICY_CONFIG);
        }
        if (rejectedReports > 0) {
            metrics.layoutReportsRejected(rejectedReports);
        }
        return accepted;
    }

    /**
     * Whether the leader should read the store before it checks the reports: it knows no layout and
     * not what the store holds (a new leader), or a report is more than one epoch ahead of all it
     * knows (it may have missed rebalances, or what it knows of the store is old: the store, read
     * now, then tells an honest report from one that jumps ahead).
     */
    private boolean needsStoreToCheck(Collection<GroupLayout> reported, GroupLayout own) {
        long known = Math.max(own.epoch(), persistence.knownStored().map(GroupLayout::epoch).orElse(0L));
        boolean newLeader = own.isEmpty() && !persistence.knowsStore();
        for (GroupLayout layout : reported) {
            if (!layout.isEmpty() && (newLeader || layout.epoch() > known + 1)) {
                return true;
            }
        }
        return false;
    }

    /** @return at most the first 5 ids, and how many more */
    private static String shortList(List<String> members) {
        return members.size() <= 5 ? members.toString()
                : members.subList(0, 5) + " and " + (members.size() - 5) + " more";
    }

    /** @return the reported layouts the leader did not use (by identity) */
    public Set<GroupLayout> rejected() {
        return Collections.unmodifiableSet(rejected);
    }

    /**
     * The topics a failed read leaves unsafe: subscribed, in the metadata, known to no member and
     * without a declared count, so their T could only come from the partition count.
     */
    private Set<String> unsafeTopics(GroupLayout layout, Set<String> inMetadata) {
        Set<String> unsafe = ProvisionalTopics.unknown(layout, inMetadata);
        unsafe.removeAll(settings.taskCounts().keySet());
        return unsafe;
    }

    /**
     * Settles the provisional topics of the members' layout by what the store holds, which a read
     * in this rebalance returned: the stored T wins; a different one is an affinity break.
     */
    private GroupLayout settle(GroupLayout reported, Optional<GroupLayout> stored) {
        ProvisionalTopics.Resolution resolution = ProvisionalTopics.resolve(reported, stored);
        for (ProvisionalTopics.Resolved resolved : resolution.resolved()) {
            if (resolved.breaksAffinity()) {
                metrics.affinityBroken();
                metrics.layoutChanged();
                log.error("{} The layout store could be read again; {} is its setting for the next time it cannot.",
                        resolved.message(), KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG);
            } else {
                log.info(resolved.message());
            }
        }
        return resolution.layout();
    }

    /** Logs at ERROR and shows in the metrics the topics held or running on a provisional T; sets when to read again. */
    private void reportUnsafe(GroupLayout layout, boolean unreadable) {
        Map<String, TopicLayout> provisional = ProvisionalTopics.of(layout);
        metrics.storeUnreadable(held.size(), provisional.size());
        if (held.isEmpty() && provisional.isEmpty()) {
            return;
        }
        retryDelayMs = persistence.retryDelay().toMillis();
        if (!held.isEmpty()) {
            log.error("The layout store could not be read, and no member knows the task count T of topics {}: they are "
                    + "not assigned until the store can be read, so that no key runs on a guessed T ({}=hold). A "
                    + "follow-up rebalance reads the store again in {} ms (members whose poll loop uses "
                    + "ExpansionBarrier.poll or FollowUpRebalance.triggerIfDue ask for it). Fix the store (see "
                    + "layout-store-failures-total and the store's WARN), declare T in {}, or set {}=provisional.",
                    held, KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG, retryDelayMs,
                    KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG,
                    KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG);
        }
        if (!provisional.isEmpty()) {
            log.error("Topics {} run on a provisional task count T taken from their partition counts, since the layout "
                    + "store {} when no member knew them. If the store holds another T, it wins once read, and those "
                    + "topics' keys move to other tasks a second time. Nothing is stored meanwhile. A follow-up "
                    + "rebalance reads the store again in {} ms ({}=provisional).", provisional.values(),
                    unreadable ? "cannot be read" : "could not be read", retryDelayMs,
                    KeyPreservingAssignorConfig.LAYOUT_STORE_UNREADABLE_POLICY_CONFIG);
        }
    }

    /** @return the topics held back in this rebalance: known to no member while the store could not be read */
    public Set<String> held() {
        return Collections.unmodifiableSet(held);
    }

    /**
     * @return how long until a follow-up rebalance should read the layout store again, if some
     *     topic is held or provisional
     */
    public OptionalLong storeRetryDelayMs() {
        return retryDelayMs < 0 ? OptionalLong.empty() : OptionalLong.of(retryDelayMs);
    }

    /** @return the topics re-created since the layout last saw them: their tasks have no prior owner */
    public Set<String> recreated() {
        return Collections.unmodifiableSet(recreated);
    }

    private void report(LayoutChange change, Cluster metadata) {
        switch (change.kind()) {
            case RECREATED:
                recreated.add(change.topic());
                metrics.topicRecreated();
                log.warn("{} Its topic id is now {}.", change.message(), metadata.topicId(change.topic()));
                break;
            case FORGOTTEN:
                metrics.topicForgotten();
                log.info("{} (after {}={} ms)", change.message(), KeyPreservingAssignorConfig.LAYOUT_FORGET_AFTER_MS_CONFIG,
                        settings.layoutForgetAfterMs());
                break;
            default:
                if (change.kind().breaksAffinity()) {
                    metrics.affinityBroken();
                    log.error("{} Affinity of keys to consumers is broken for this topic only; the group goes on. To "
                            + "avoid it, grow topics to a multiple of their task count, or declare the count in {}.",
                            change.message(), KeyPreservingAssignorConfig.TASK_COUNTS_CONFIG);
                } else if (change.kind().changesLayout()) {
                    log.info(change.message());
                } else {
                    log.warn(change.message());
                }
        }
        if (change.kind().changesLayout()) {
            metrics.layoutChanged();
        }
    }

    /** Partition counts of the subscribed topics that the metadata knows. */
    public static Map<String, Integer> partitionCounts(Set<String> subscribed, Cluster metadata) {
        Map<String, Integer> counts = new TreeMap<>();
        for (String topic : subscribed) {
            Integer count = metadata.partitionCountForTopic(topic);
            if (count != null) {
                counts.put(topic, count);
            }
        }
        return counts;
    }

    /**
     * The layout's topics that are live: subscribed, or in the metadata. With explicit
     * subscriptions the leader's metadata covers only the group's subscription, so a topic nobody
     * subscribes to soon leaves it even if it still exists; with a pattern it covers every topic.
     */
    private static Set<String> liveTopics(GroupLayout layout, Set<String> subscribed, Cluster metadata) {
        Set<String> live = new HashSet<>(subscribed);
        for (TopicLayout topic : layout.topics()) {
            if (metadata.partitionCountForTopic(topic.topic()) != null) {
                live.add(topic.topic());
            }
        }
        return live;
    }
}
