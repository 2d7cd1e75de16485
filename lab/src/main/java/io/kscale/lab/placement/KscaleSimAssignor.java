package io.kscale.lab.placement;

import io.kscale.assignor.internals.placement.ClientDescription;
import io.kscale.assignor.internals.placement.ClientPlacement;
import io.kscale.assignor.internals.placement.Placement;
import io.kscale.assignor.internals.placement.PlacementEngine;
import io.kscale.assignor.internals.placement.PlacementRequest;
import io.kscale.assignor.internals.placement.PlacementSettings;
import io.kscale.assignor.internals.placement.RestoreRateLearner;
import io.kscale.assignor.internals.placement.TaskDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * kscale's {@link PlacementEngine} as a simulated assignor. Tasks weigh 1 each (as the HA assignor
 * counts them) and form one co-location group per sub-topology, as the Kafka Streams adapter
 * passes them. Three ways to know the restore rate ({@link Rate}):
 * <ul>
 *   <li>{@code LEARNED}, as {@code WarmupTaskAssignor} ships: no rate is configured, and a
 *       {@link RestoreRateLearner} in the group leader's JVM learns each client's rate from the
 *       lags of the round inputs and the leader's clock, nothing else of the world. The leader is
 *       the first client of the group; when it leaves or crashes, the next by id leads, with an
 *       empty history (a new JVM), as a real leader change loses it;</li>
 *   <li>{@code GIVEN}: the engine is told the slowest client's restore rate, as an operator could
 *       configure it: the bound the learner chases;</li>
 *   <li>{@code UNKNOWN}: neither: the follow-up comes after the probing interval, like Kafka's
 *       assignor (kscale before it learned).</li>
 * </ul>
 */
public final class KscaleSimAssignor implements SimAssignor {

    /** How the engine knows the restore rate. */
    public enum Rate {
        /** Learned by the leader from lags and its clock (the default as shipped). */
        LEARNED("kscale"),
        /** The slowest client's rate, configured. */
        GIVEN("kscale-rate-given"),
        /** Neither: probing interval. */
        UNKNOWN("kscale-probing");

        private final String assignorName;

        Rate(String assignorName) {
            this.assignorName = assignorName;
        }
    }

    private final PlacementEngine engine = new PlacementEngine();
    private final Rate rate;
    private RestoreRateLearner learner = new RestoreRateLearner();
    private String leader;

    /** @param rate how the engine knows the restore rate */
    public KscaleSimAssignor(Rate rate) {
        this.rate = rate;
    }

    @Override
    public String name() {
        return rate.assignorName;
    }

    @Override
    public void newGroup() {
        learner = new RestoreRateLearner();
        leader = null;
    }

    @Override
    public RoundDecision assign(RoundInput input) {
        SimSettings s = input.settings();
        PlacementSettings settings = PlacementSettings.builder()
                .acceptableRecoveryLag(s.acceptableRecoveryLag())
                .maxWarmups(s.maxWarmups())
                .standbyCount(s.standbys())
                .probingInterval(s.probingInterval())
                .restoreRecordsPerSecond(rate == Rate.GIVEN ? input.slowestRestoreRate() : 0)
                .build();
        List<TaskDescription> tasks = new ArrayList<>();
        for (SimTask task : input.tasks()) {
            TaskDescription described = task.stateful() ? TaskDescription.stateful(task.id()) : TaskDescription.stateless(task.id());
            tasks.add(described.inGroup("subtopology-" + task.subtopology()));
        }
        List<ClientDescription> clients = new ArrayList<>();
        for (ClientView client : input.clients()) {
            clients.add(ClientDescription.builder(client.id())
                    .capacity(client.capacity())
                    .priorActive(client.priorActive())
                    .priorStandby(client.priorStandby())
                    .lags(client.lags())
                    .build());
        }
        PlacementRequest request = PlacementRequest.of(tasks, clients, settings);
        Placement placement;
        if (rate == Rate.LEARNED) {
            followTheLeader(input);
            request = learner.learn(request, input.nowMs());
            placement = engine.place(request);
            learner.remember(request, placement, input.nowMs());
        } else {
            placement = engine.place(request);
        }
        Map<String, Copies> copies = new TreeMap<>();
        for (ClientPlacement client : placement.clients().values()) {
            copies.put(client.clientId(), new Copies(client.active(), client.standby(), client.warmup()));
        }
        return new RoundDecision(copies, placement.followUp().delay());
    }

    /** The leader keeps its history while it stays; a new leader (the first client by id) starts empty. */
    private void followTheLeader(RoundInput input) {
        boolean stays = input.clients().stream().anyMatch(client -> client.id().equals(leader));
        if (!stays && !input.clients().isEmpty()) {
            if (leader != null) {
                learner = new RestoreRateLearner();
            }
            leader = input.clients().get(0).id();
        }
    }
}
