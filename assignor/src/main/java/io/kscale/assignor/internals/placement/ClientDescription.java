package io.kscale.assignor.internals.placement;

import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A client that can run tasks (a Kafka Streams instance, a consumer group member) as the
 * engine sees it: its capacity, its rack, what it ran before and how far behind its local state
 * is. Immutable; build one with {@link #builder(String)}.
 *
 * <p><b>Capacity</b> is a relative size (stream threads, say). Load is balanced per unit of
 * capacity. A client with capacity 0 gets nothing: no active, standby or warmup task.
 *
 * <p><b>Lag</b> is how many records the client's local state of a task is behind, where known
 * (Kafka Streams' {@code lagFor}). A task's lag is unknown if the client never reported it; the
 * prior active owner of a task with an unknown lag counts as caught up (it was running the task,
 * like Streams' {@code -2} sentinel), every other client with an unknown lag as not caught up.
 *
 * <p><b>Restore rate</b> (optional) is how many changelog records per second the client restores,
 * all the copies it restores at once together, net of what their changelogs grow meanwhile; it
 * overrides {@link PlacementSettings#restoreRecordsPerSecond()} for this client's copies. Where no
 * rate is known, <b>measure after</b> (optional) replaces the probing interval as the delay
 * predicted for this client's copies: a short follow-up whose lags measure the rate. Both feed the
 * follow-up rule on {@link Placement#followUp()}; {@link RestoreRateLearner} sets them.
 *
 * <p><b>Base load</b> (optional, default 0) is weight the client already carries from tasks placed
 * outside this request, such as the units of another group of topics a consumer reads: balance
 * counts it as load the client holds (per capacity, as any other), and nothing of it moves. A
 * consumer group whose members read different topics places each group of topics in its own
 * request, each on top of what the others give its members.
 */
public final class ClientDescription {

    private final String id;
    private final int capacity;
    private final String rack;
    private final Set<String> priorActive;
    private final Set<String> priorStandby;
    private final Map<String, Long> lags;
    private final long restoreRecordsPerSecond;
    private final Duration measureAfter;
    private final long baseLoad;

    private ClientDescription(Builder builder) {
        this.id = builder.id;
        this.capacity = builder.capacity;
        this.rack = builder.rack;
        this.priorActive = Collections.unmodifiableSet(new TreeSet<>(builder.priorActive));
        this.priorStandby = Collections.unmodifiableSet(new TreeSet<>(builder.priorStandby));
        this.lags = Collections.unmodifiableMap(new TreeMap<>(builder.lags));
        this.restoreRecordsPerSecond = builder.restoreRecordsPerSecond;
        this.measureAfter = builder.measureAfter;
        this.baseLoad = builder.baseLoad;
        for (String task : priorActive) {
            if (priorStandby.contains(task)) {
                throw new IllegalArgumentException("client '" + id + "' lists task '" + task
                        + "' as both prior active and prior standby; a client holds one copy of a task");
            }
        }
    }

    /**
     * Starts a client description with capacity 1, no rack, no prior tasks and no lags.
     *
     * @param id the client id, unique in a request
     * @return a builder
     */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** @return the client id */
    public String id() {
        return id;
    }

    /** @return the relative capacity, 0 or more */
    public int capacity() {
        return capacity;
    }

    /** @return the rack, if known */
    public Optional<String> rack() {
        return Optional.ofNullable(rack);
    }

    /** @return the tasks this client ran as active before this placement, in id order */
    public Set<String> priorActive() {
        return priorActive;
    }

    /** @return the tasks this client held as standby or warmup before this placement, in id order */
    public Set<String> priorStandby() {
        return priorStandby;
    }

    /** @return the known lags by task id, in id order */
    public Map<String, Long> lags() {
        return lags;
    }

    /** @return records per second this client restores, all its restoring copies together; 0 if unknown */
    public long restoreRecordsPerSecond() {
        return restoreRecordsPerSecond;
    }

    /** @return the delay predicted for this client's copies while its restore rate is unknown, if set */
    public Optional<Duration> measureAfter() {
        return Optional.ofNullable(measureAfter);
    }

    /** @return weight the client carries from tasks outside the request; 0 by default */
    public long baseLoad() {
        return baseLoad;
    }

    /**
     * A builder holding everything this description holds, to change some of it.
     *
     * @return a new builder
     */
    public Builder toBuilder() {
        Builder builder = new Builder(id).capacity(capacity).rack(rack).priorActive(priorActive)
                .priorStandby(priorStandby).restoreRecordsPerSecond(restoreRecordsPerSecond);
        builder.lags.putAll(lags);
        builder.measureAfter = measureAfter;
        builder.baseLoad = baseLoad;
        return builder;
    }

    /**
     * The lag of this client's local state of a task.
     *
     * @param taskId a task id
     * @return the lag in records, or empty if unknown
     */
    public OptionalLong lag(String taskId) {
        Long lag = lags.get(taskId);
        return lag == null ? OptionalLong.empty() : OptionalLong.of(lag);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClientDescription)) {
            return false;
        }
        ClientDescription that = (ClientDescription) o;
        return capacity == that.capacity && id.equals(that.id) && Objects.equals(rack, that.rack)
                && priorActive.equals(that.priorActive) && priorStandby.equals(that.priorStandby)
                && lags.equals(that.lags) && restoreRecordsPerSecond == that.restoreRecordsPerSecond
                && Objects.equals(measureAfter, that.measureAfter) && baseLoad == that.baseLoad;
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, capacity, rack, priorActive, priorStandby, lags, restoreRecordsPerSecond, measureAfter, baseLoad);
    }

    @Override
    public String toString() {
        return "client " + id + "(capacity " + capacity + (rack == null ? "" : ", rack " + rack)
                + ", active " + priorActive + ", standby " + priorStandby + ", lags " + lags
                + (restoreRecordsPerSecond == 0 ? "" : ", restores " + restoreRecordsPerSecond + "/s")
                + (measureAfter == null ? "" : ", measure after " + measureAfter)
                + (baseLoad == 0 ? "" : ", base load " + baseLoad) + ")";
    }

    /** Collects a {@link ClientDescription}; not thread-safe. */
    public static final class Builder {
        private final String id;
        private int capacity = 1;
        private String rack;
        private final Set<String> priorActive = new TreeSet<>();
        private final Set<String> priorStandby = new TreeSet<>();
        private final Map<String, Long> lags = new TreeMap<>();
        private long restoreRecordsPerSecond;
        private Duration measureAfter;
        private long baseLoad;

        private Builder(String id) {
            this.id = Objects.requireNonNull(id, "client id");
        }

        /**
         * Sets the relative capacity (default 1).
         *
         * @param capacity 0 or more; 0 means the client gets no tasks
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder capacity(int capacity) {
            if (capacity < 0) {
                throw new IllegalArgumentException("client '" + id + "' has capacity " + capacity + "; it must be 0 or more");
            }
            this.capacity = capacity;
            return this;
        }

        /**
         * Sets the rack (default none).
         *
         * @param rack the rack id, or null if unknown
         * @return this builder
         */
        public Builder rack(String rack) {
            this.rack = rack;
            return this;
        }

        /**
         * Adds tasks the client ran as active before.
         *
         * @param taskIds task ids
         * @return this builder
         */
        public Builder priorActive(Collection<String> taskIds) {
            taskIds.forEach(task -> priorActive.add(Objects.requireNonNull(task, "task id")));
            return this;
        }

        /**
         * Adds tasks the client ran as active before.
         *
         * @param taskIds task ids
         * @return this builder
         */
        public Builder priorActive(String... taskIds) {
            return priorActive(java.util.Arrays.asList(taskIds));
        }

        /**
         * Adds tasks the client held as standby or warmup before.
         *
         * @param taskIds task ids
         * @return this builder
         */
        public Builder priorStandby(Collection<String> taskIds) {
            taskIds.forEach(task -> priorStandby.add(Objects.requireNonNull(task, "task id")));
            return this;
        }

        /**
         * Adds tasks the client held as standby or warmup before.
         *
         * @param taskIds task ids
         * @return this builder
         */
        public Builder priorStandby(String... taskIds) {
            return priorStandby(java.util.Arrays.asList(taskIds));
        }

        /**
         * Sets the lag of the client's local state of a task.
         *
         * @param taskId the task id
         * @param lag records behind, 0 or more
         * @return this builder
         * @throws IllegalArgumentException if negative (map Streams' sentinels before: {@code -2}
         *         means 0, {@code -3} means unknown)
         */
        public Builder lag(String taskId, long lag) {
            if (lag < 0) {
                throw new IllegalArgumentException("client '" + id + "' reports lag " + lag + " for task '" + taskId
                        + "'; a lag must be 0 or more (leave it out if unknown)");
            }
            lags.put(Objects.requireNonNull(taskId, "task id"), lag);
            return this;
        }

        /**
         * Sets lags of several tasks.
         *
         * @param lagsByTask records behind by task id
         * @return this builder
         */
        public Builder lags(Map<String, Long> lagsByTask) {
            lagsByTask.forEach(this::lag);
            return this;
        }

        /**
         * Sets how fast the client restores, all the copies it restores at once together (default
         * 0: unknown, {@link PlacementSettings#restoreRecordsPerSecond()} applies).
         *
         * @param recordsPerSecond 0 or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder restoreRecordsPerSecond(long recordsPerSecond) {
            if (recordsPerSecond < 0) {
                throw new IllegalArgumentException("client '" + id + "' restores " + recordsPerSecond
                        + " records/s; a restore rate must be 0 (unknown) or more");
            }
            this.restoreRecordsPerSecond = recordsPerSecond;
            return this;
        }

        /**
         * Sets the delay predicted for the client's copies while no restore rate is known for it
         * (default: the probing interval). The follow-up stays within the settings' bounds.
         *
         * @param delay positive
         * @return this builder
         * @throws IllegalArgumentException if zero or negative
         */
        public Builder measureAfter(Duration delay) {
            if (delay.isNegative() || delay.isZero()) {
                throw new IllegalArgumentException("client '" + id + "' has measureAfter " + delay + "; it must be positive");
            }
            this.measureAfter = delay;
            return this;
        }

        /**
         * Sets the weight the client already carries from tasks placed outside this request
         * (default 0): balance counts it, and none of it moves.
         *
         * @param weight 0 or more
         * @return this builder
         * @throws IllegalArgumentException if negative
         */
        public Builder baseLoad(long weight) {
            if (weight < 0) {
                throw new IllegalArgumentException("client '" + id + "' has base load " + weight + "; it must be 0 or more");
            }
            this.baseLoad = weight;
            return this;
        }

        /**
         * Builds the description.
         *
         * @return the client description
         * @throws IllegalArgumentException if a task is both prior active and prior standby
         */
        public ClientDescription build() {
            return new ClientDescription(this);
        }
    }
}
