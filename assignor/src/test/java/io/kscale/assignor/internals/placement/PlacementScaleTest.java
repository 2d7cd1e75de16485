package io.kscale.assignor.internals.placement;

import static io.kscale.assignor.internals.placement.PlacementFixtures.activeOwners;
import static io.kscale.assignor.internals.placement.PlacementFixtures.place;
import static io.kscale.assignor.internals.placement.PlacementFixtures.priorOwners;
import static io.kscale.assignor.internals.placement.PlacementFixtures.stateful;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One placement at a size where a quadratic slip would show: the same promises as the small
 * examples. The timeout is a generous guard, not a measurement (that belongs in JMH).
 */
class PlacementScaleTest {

    private static final int TASKS = 10_000;
    private static final int CLIENTS = 100;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void shouldPlanOnlyTheNewcomersShareWhenTheHundredAndFirstClientJoins() {
        List<TaskDescription> tasks = stateful("t", TASKS);
        List<ClientDescription> clients = new ArrayList<>();
        for (int c = 0; c <= CLIENTS; c++) {
            ClientDescription.Builder client = ClientDescription.builder(String.format("c%03d", c));
            for (int t = c; c < CLIENTS && t < TASKS; t += CLIENTS) {
                client.priorActive(tasks.get(t).id());
            }
            clients.add(client.build());
        }
        PlacementRequest request = PlacementRequest.of(tasks, clients, PlacementSettings.builder().standbyCount(1).build());

        Placement placement = place(request);

        int share = TASKS / (CLIENTS + 1);
        assertThat(placement.pendingMoves()).isEqualTo(share);
        assertThat(placement.client(String.format("c%03d", CLIENTS)).active()).as("nothing moves before warming up").isEmpty();
        assertThat(activeOwners(placement)).isEqualTo(priorOwners(request));
        Set<String> warmupOwners = new HashSet<>();
        Map<String, String> owners = activeOwners(placement);
        placement.client(String.format("c%03d", CLIENTS)).standby().forEach(task -> warmupOwners.add(owners.get(task)));
        placement.client(String.format("c%03d", CLIENTS)).warmup().forEach(task -> warmupOwners.add(owners.get(task)));
        assertThat(warmupOwners).as("the copies on the newcomer come from distinct givers").hasSizeGreaterThanOrEqualTo(
                placement.client(String.format("c%03d", CLIENTS)).warmup().size());
    }
}
