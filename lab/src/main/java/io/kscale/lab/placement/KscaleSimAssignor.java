package io.kscale.lab.placement;

import io.kscale.assignor.placement.ClientDescription;
import io.kscale.assignor.placement.ClientPlacement;
import io.kscale.assignor.placement.Placement;
import io.kscale.assignor.placement.PlacementEngine;
import io.kscale.assignor.placement.PlacementRequest;
import io.kscale.assignor.placement.PlacementSettings;
import io.kscale.assignor.placement.TaskDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * kscale's {@link PlacementEngine} as a simulated assignor. Tasks weigh 1 each (as the HA assignor
 * counts them) and form one co-location group per sub-topology, as the Kafka Streams adapter
 * passes them. With {@code useRestoreRate}, the engine is told the slowest client's restore rate
 * and predicts when warmups catch up; without it, it follows up after the probing interval,
 * like Kafka's assignor, which isolates what the rate hint buys.
 */
public final class KscaleSimAssignor implements SimAssignor {

    private final PlacementEngine engine = new PlacementEngine();
    private final boolean useRestoreRate;

    /** @param useRestoreRate whether to pass the slowest client's restore rate as the engine's hint */
    public KscaleSimAssignor(boolean useRestoreRate) {
        this.useRestoreRate = useRestoreRate;
    }

    @Override
    public String name() {
        return useRestoreRate ? "kscale" : "kscale-no-rate";
    }

    @Override
    public RoundDecision assign(RoundInput input) {
        SimSettings s = input.settings();
        PlacementSettings settings = PlacementSettings.builder()
                .acceptableRecoveryLag(s.acceptableRecoveryLag())
                .maxWarmups(s.maxWarmups())
                .standbyCount(s.standbys())
                .probingInterval(s.probingInterval())
                .restoreRecordsPerSecond(useRestoreRate ? input.slowestRestoreRate() : 0)
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
        Placement placement = engine.place(PlacementRequest.of(tasks, clients, settings));
        Map<String, Copies> copies = new TreeMap<>();
        for (ClientPlacement client : placement.clients().values()) {
            copies.put(client.clientId(), new Copies(client.active(), client.standby(), client.warmup()));
        }
        return new RoundDecision(copies, placement.followUp().delay());
    }
}
