package io.kscale.assignor.internals.placement;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Learns how fast each client restores state from the lags it reports at successive rebalances, so
 * that the follow-up rebalance that promotes caught-up warmups comes when they are predicted to
 * have caught up, without anyone configuring a restore rate. The group leader keeps one per group
 * and calls it around every placement:
 * <pre>
 *   PlacementRequest learned = learner.learn(request, nowMs);   // measures, adds rates
 *   Placement placement = engine.place(learned);
 *   learner.remember(learned, placement, nowMs);                // what restores from now on
 * </pre>
 * Pure like the engine: no clock of its own, no I/O. Thread-safe.
 *
 * <p><b>What it keeps</b>, per client id: the copies the client restores after the last placement
 * (warmups, and standby and active copies more than the acceptable lag behind) with their lags and
 * the leader's time then; its latest rate; and how many follow-ups in a row found none of its
 * copies caught up. A client absent from a request (it left) is forgotten, so the history holds one
 * small entry per member. It lives as long as its owner keeps it: a new leader, or a restarted
 * JVM, starts without history, which is safe (the next rebalance measures again).
 *
 * <p><b>Measuring.</b> At the next rebalance the client's rate is how many records its copies got
 * closer to their changelog ends, summed, divided by the leader's time in between:
 * {@code (sum of lags then - sum of lags now) / elapsed}. That is net of what the changelogs grew
 * meanwhile, which is what catching up needs, and it is the rate all the client's copies share,
 * which the engine divides among the copies it restores next. Only the leader's clock is read, at
 * the two rebalances: a member's clock decides at most when it asks for the follow-up, and the
 * measurement takes the time that really passed on the leader. Not measured: a client that no
 * longer holds every copy it restored (another leader reassigned them in between, or it restarted
 * without its state), an interval under a second, or one longer than twice the probing interval
 * (other leaders may have run rebalances between). If every copy caught up during the interval,
 * the measurement is a lower bound and only raises the estimate. Otherwise the latest measurement
 * replaces the earlier one, so a rate that changes is followed from the next rebalance on; lags
 * that did not move, or grew (input faster than the restore), give no usable rate.
 *
 * <p><b>What it tells the engine</b>, per client without a rate of its own (and nothing when the
 * settings carry a rate: a configured rate overrides learning): a positive rate as
 * {@link ClientDescription#restoreRecordsPerSecond()}, from which the engine predicts the
 * catch-up; without one (a client never measured, or whose lags stood still or grew) a measuring
 * delay as {@link ClientDescription#measureAfter()}: {@link #measuringDelay} doubled for each idle
 * follow-up in a row; after {@value #MAX_IDLE_FOLLOW_UPS} idle follow-ups in a row, neither: its
 * copies wait for the probing interval, as with Kafka's built-in assignor.
 *
 * <p><b>Back-off.</b> A follow-up is <em>idle</em> for a client when it comes at or after the time
 * the client's copies were predicted to have caught up (or to be measured) and none of them has,
 * unless it was a measuring follow-up that did measure a rate.
 * The count starts again at 0 when one of its copies catches up or when it has none in flight. So
 * a task move onto an instance costs at most {@value #MAX_IDLE_FOLLOW_UPS} follow-ups that this
 * instance asked for and that promote nothing, plus the measuring one when its rate was unknown;
 * then the probing interval bounds the rate of rebalances as it does for the built-in. A rate
 * measured too high usually costs one idle follow-up: that follow-up measures the rate again.
 *
 * <p>Worked example (acceptable lag 10,000, probing interval 10 minutes). B joins and warms up two
 * copies lagging 310,000 and 1,010,000 records. Rebalance 1 at 0 s: no history, so B's copies
 * predict the measuring delay, 30 s. Rebalance 2 at 30 s: the lags are 235,000 and 935,000, so B
 * restored 150,000 records in 30 s: 5,000 records/s, shared by two copies; the first is predicted
 * within 10,000 records in 2 x 225,000 / 5,000 = 90 s, so the follow-up comes at 120 s, when it
 * has caught up and moves. Told the rate, the engine would have picked 120 s at once.
 */
public final class RestoreRateLearner {

    /** The longest measuring delay: a rate measured over 30 s of restore is good enough to predict from. */
    public static final Duration MAX_MEASURING_DELAY = Duration.ofSeconds(30);
    /** Idle follow-ups in a row after which a client's copies wait for the probing interval. */
    public static final int MAX_IDLE_FOLLOW_UPS = 3;

    private static final long MIN_INTERVAL_MS = 1_000;
    /** A follow-up that comes this much before a prediction still counts as due (predictions are whole seconds). */
    private static final long DUE_SLACK_MS = 1_000;
    /** Lags at or above this are not measured: "large but unknown" sentinels, or nonsense from the wire. */
    private static final long HUGE_LAG = Long.MAX_VALUE / 4;
    private static final double MAX_RATE = 1e15;

    private final Map<String, History> clients = new HashMap<>();

    /** Creates a learner without history. */
    public RestoreRateLearner() {
    }

    /**
     * The delay of a measuring follow-up: a tenth of the probing interval, at most
     * {@link #MAX_MEASURING_DELAY} and at least the minimum follow-up delay. With Streams' defaults
     * (10 minutes, 10 s) that is 30 s; with a 60 s probing interval, 10 s.
     *
     * @param settings the settings
     * @return the delay
     */
    public static Duration measuringDelay(PlacementSettings settings) {
        Duration tenth = settings.probingInterval().dividedBy(10);
        Duration delay = tenth.compareTo(MAX_MEASURING_DELAY) > 0 ? MAX_MEASURING_DELAY : tenth;
        return delay.compareTo(settings.minFollowUpDelay()) < 0 ? settings.minFollowUpDelay() : delay;
    }

    /**
     * Measures each client's rate from its lags now and its copies at the last placement, forgets
     * clients that left, and returns the request with what it learned (see the class comment).
     *
     * @param request this rebalance's request
     * @param nowMs the leader's clock, in ms
     * @return the request to place: unchanged when the settings carry a restore rate
     */
    public synchronized PlacementRequest learn(PlacementRequest request, long nowMs) {
        PlacementSettings settings = request.settings();
        Set<String> present = new HashSet<>();
        request.clients().forEach(client -> present.add(client.id()));
        clients.keySet().retainAll(present);
        if (settings.restoreRecordsPerSecond() > 0) {
            return request;
        }
        List<ClientDescription> described = new ArrayList<>(request.clients().size());
        for (ClientDescription client : request.clients()) {
            History history = clients.computeIfAbsent(client.id(), id -> new History());
            history.measure(client, nowMs, settings);
            described.add(history.describe(client, settings));
        }
        return PlacementRequest.of(request.tasks(), described, settings);
    }

    /**
     * Remembers which copies each client restores after this placement, and when their catch-up
     * was predicted, for the next rebalance's measurement.
     *
     * @param request the request that was placed, as {@link #learn} returned it
     * @param placement its placement
     * @param nowMs the leader's clock, in ms, as given to {@link #learn}
     */
    public synchronized void remember(PlacementRequest request, Placement placement, long nowMs) {
        if (request.settings().restoreRecordsPerSecond() > 0) {
            return;
        }
        for (ClientDescription client : request.clients()) {
            ClientPlacement placed = placement.clients().get(client.id());
            if (placed != null) {
                clients.computeIfAbsent(client.id(), id -> new History()).remember(client, placed, nowMs, request.settings());
            }
        }
    }

    /**
     * What it has learned, for metrics: taken after {@link #remember}, it describes the clients of
     * the last request.
     *
     * @return the learned rates and back-off, over the clients it keeps history of
     */
    public synchronized Snapshot snapshot() {
        int rated = 0;
        double min = Double.NaN;
        double max = Double.NaN;
        int maxIdle = 0;
        int backedOff = 0;
        for (History history : clients.values()) {
            // The same threshold as describe(): a rate under 1 record/s is no rate.
            if (history.rate >= 1) {
                rated++;
                min = Double.isNaN(min) ? history.rate : Math.min(min, history.rate);
                max = Double.isNaN(max) ? history.rate : Math.max(max, history.rate);
            }
            maxIdle = Math.max(maxIdle, history.idle);
            if (history.idle >= MAX_IDLE_FOLLOW_UPS) {
                backedOff++;
            }
        }
        return new Snapshot(rated, min, max, maxIdle, backedOff);
    }

    /** @return how many clients it keeps history of (tests) */
    synchronized int size() {
        return clients.size();
    }

    /** @return the client's idle follow-ups in a row, 0 if it has no history (tests) */
    synchronized int idleFollowUps(String clientId) {
        History history = clients.get(clientId);
        return history == null ? 0 : history.idle;
    }

    @Override
    public synchronized String toString() {
        return "RestoreRateLearner" + clients;
    }

    /** What a learner knew at one moment, over the clients it keeps history of (see {@link #snapshot()}). */
    public static final class Snapshot {

        /** A learner without history. */
        public static final Snapshot EMPTY = new Snapshot(0, Double.NaN, Double.NaN, 0, 0);

        private final int ratedClients;
        private final double minRate;
        private final double maxRate;
        private final int maxIdleFollowUps;
        private final int backedOffClients;

        Snapshot(int ratedClients, double minRate, double maxRate, int maxIdleFollowUps, int backedOffClients) {
            this.ratedClients = ratedClients;
            this.minRate = minRate;
            this.maxRate = maxRate;
            this.maxIdleFollowUps = maxIdleFollowUps;
            this.backedOffClients = backedOffClients;
        }

        /** @return clients with a learned rate (at least 1 record/s) */
        public int ratedClients() {
            return ratedClients;
        }

        /** @return the lowest learned rate, records/s; NaN if no client has one */
        public double minRate() {
            return minRate;
        }

        /** @return the highest learned rate, records/s; NaN if no client has one */
        public double maxRate() {
            return maxRate;
        }

        /** @return the most idle follow-ups in a row of any client; 0 without history */
        public int maxIdleFollowUps() {
            return maxIdleFollowUps;
        }

        /** @return clients with {@value RestoreRateLearner#MAX_IDLE_FOLLOW_UPS} or more idle follow-ups in a row: their copies wait for the probing interval */
        public int backedOffClients() {
            return backedOffClients;
        }

        @Override
        public String toString() {
            return "Snapshot(rated " + ratedClients + ", min " + minRate + ", max " + maxRate + ", max idle "
                    + maxIdleFollowUps + ", backed off " + backedOffClients + ")";
        }
    }

    /** The lag the engine sees: reported, else 0 on the prior owner; {@link Model#UNKNOWN} if unknown or huge. */
    private static long lag(ClientDescription client, String task) {
        Long lag = client.lags().get(task);
        if (lag != null) {
            return lag >= HUGE_LAG ? Model.UNKNOWN : lag;
        }
        return client.priorActive().contains(task) ? 0 : Model.UNKNOWN;
    }

    /** What the learner knows of one client. Guarded by the learner's lock. */
    private static final class History {
        /** Records per second, net; 0 or less: unknown (never measured, stalled or growing). */
        private double rate;
        private int idle;
        private Observation last;

        void measure(ClientDescription client, long nowMs, PlacementSettings settings) {
            Observation then = last;
            last = null;
            if (then == null) {
                return;
            }
            long elapsed = nowMs - then.timeMs;
            if (elapsed <= 0 || elapsed > 2 * settings.probingInterval().toMillis()) {
                return;
            }
            double progress = 0;
            boolean anyCaughtUp = false;
            boolean allCaughtUp = true;
            for (Map.Entry<String, Long> copy : then.lags.entrySet()) {
                String task = copy.getKey();
                if (!client.priorActive().contains(task) && !client.priorStandby().contains(task)) {
                    return; // the copy changed hands: the lags say nothing about this client's rate
                }
                long now = lag(client, task);
                if (now == Model.UNKNOWN) {
                    return;
                }
                progress += copy.getValue() - now;
                boolean caughtUp = now <= settings.acceptableRecoveryLag();
                anyCaughtUp |= caughtUp;
                allCaughtUp &= caughtUp;
            }
            if (elapsed >= MIN_INTERVAL_MS && !then.lags.isEmpty()) {
                double measured = Math.min(MAX_RATE, progress * 1000.0 / elapsed);
                // All caught up: they may have finished long before now, so the rate was at least this.
                rate = allCaughtUp ? Math.max(rate, measured) : measured;
            }
            boolean measuredAtLast = !then.predicted && rate >= 1;
            if (anyCaughtUp) {
                idle = 0;
            } else if (nowMs + DUE_SLACK_MS >= then.expectedAtMs && !measuredAtLast) {
                idle++;
            }
        }

        ClientDescription describe(ClientDescription client, PlacementSettings settings) {
            if (client.restoreRecordsPerSecond() > 0 || idle >= MAX_IDLE_FOLLOW_UPS) {
                return client;
            }
            if (rate >= 1) {
                return client.toBuilder().restoreRecordsPerSecond((long) rate).build();
            }
            Duration delay = measuringDelay(settings);
            for (int i = 0; i < idle && delay.compareTo(settings.probingInterval()) < 0; i++) {
                delay = delay.multipliedBy(2);
            }
            return client.toBuilder().measureAfter(delay).build();
        }

        void remember(ClientDescription client, ClientPlacement placed, long nowMs, PlacementSettings settings) {
            Copies copies = new Copies(settings.acceptableRecoveryLag());
            placed.warmup().forEach(task -> copies.add(lag(client, task), task, true));
            placed.standby().forEach(task -> copies.add(lag(client, task), task, false));
            placed.active().forEach(task -> copies.add(lag(client, task), task, false));
            if (copies.restoring.isEmpty() && !copies.unknownWarmup) {
                idle = 0;
                return;
            }
            boolean predicted = client.restoreRecordsPerSecond() > 0 || settings.restoreRecordsPerSecond() > 0;
            last = new Observation(nowMs, copies.restoring, expectedAt(client, copies, nowMs, settings), predicted);
        }

        /** @return when one of the client's copies is predicted to have caught up (or be measured), leader's ms */
        private static long expectedAt(ClientDescription client, Copies copies, long nowMs, PlacementSettings settings) {
            if (copies.catchingUp.isEmpty() && !copies.unknownWarmup) {
                return Long.MAX_VALUE;
            }
            Duration probing = settings.probingInterval();
            Duration soonest = probing;
            long rate = client.restoreRecordsPerSecond() > 0 ? client.restoreRecordsPerSecond()
                    : settings.restoreRecordsPerSecond();
            if (rate > 0) {
                for (long lag : copies.catchingUp) {
                    long seconds = WarmupPlanner.catchUpSeconds(lag, settings.acceptableRecoveryLag(),
                            Math.max(1, copies.sharing), rate);
                    if (seconds < soonest.getSeconds()) {
                        soonest = Duration.ofSeconds(seconds);
                    }
                }
            } else if (client.measureAfter().isPresent() && client.measureAfter().get().compareTo(probing) < 0) {
                soonest = client.measureAfter().get();
            }
            if (soonest.compareTo(settings.minFollowUpDelay()) < 0) {
                soonest = settings.minFollowUpDelay();
            }
            return nowMs + soonest.toMillis();
        }

        @Override
        public String toString() {
            return "(rate " + Math.round(rate) + "/s, idle " + idle + ", restoring " + (last == null ? 0 : last.lags.size()) + ")";
        }
    }

    /**
     * The copies one client holds after a placement that it restores (more than the acceptable lag
     * behind: they share its rate), as the engine counts them. All of them count for when the
     * client is due: a follow-up may wait for a warmup, a standby on a move's target, or an active
     * task whose restore holds the client's warmups back; counting them all also bounds the
     * follow-ups of a client whose active restore stalls.
     */
    private static final class Copies {
        private final long acceptable;
        final Map<String, Long> restoring = new HashMap<>();
        final List<Long> catchingUp = new ArrayList<>();
        int sharing;
        /** A warmup whose lag is unknown: it shares the rate and cannot be measured. */
        boolean unknownWarmup;

        Copies(long acceptable) {
            this.acceptable = acceptable;
        }

        void add(long lag, String task, boolean warmup) {
            if (lag == Model.UNKNOWN) {
                sharing++;
                unknownWarmup |= warmup;
            } else if (lag > acceptable) {
                sharing++;
                restoring.put(task, lag);
                catchingUp.add(lag);
            }
        }
    }

    /** The copies a client restores from one placement on, with their lags then. */
    private static final class Observation {
        final long timeMs;
        final Map<String, Long> lags;
        final long expectedAtMs;
        /** Whether a rate predicted the catch-up; if not, the follow-up was there to measure. */
        final boolean predicted;

        Observation(long timeMs, Map<String, Long> lags, long expectedAtMs, boolean predicted) {
            this.timeMs = timeMs;
            this.lags = lags;
            this.expectedAtMs = expectedAtMs;
            this.predicted = predicted;
        }
    }
}
