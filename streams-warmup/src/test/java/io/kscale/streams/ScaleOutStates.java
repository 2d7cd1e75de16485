package io.kscale.streams;

import static io.kscale.streams.StreamsFixtures.A;
import static io.kscale.streams.StreamsFixtures.B;
import static io.kscale.streams.StreamsFixtures.state;
import static io.kscale.streams.StreamsFixtures.task;
import static io.kscale.streams.StreamsFixtures.tasks;

import java.util.List;
import org.apache.kafka.streams.processor.TaskId;

/**
 * The scale-out the learning and metrics tests share: A runs 0_0..0_3; B joins with copies
 * lagging 310,000 records (0_0) and 1,010,000 (the others), restores {@value #RATE} records/s
 * shared by the two copies it warms up (0_0 and 0_1), and nothing writes meanwhile.
 */
final class ScaleOutStates {

    static final List<TaskId> FOUR = tasks(0, 4);
    /** B's restore rate, records per second, shared by its two warmups. */
    static final long RATE = 5_000;

    private ScaleOutStates() {
    }

    /** The first rebalance: B has joined, with nothing warming yet. */
    static TestApplicationState scaleOut() {
        return state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(1_010_000).lag(task(0, 0), 310_000)).build();
    }

    /** The state at {@code seconds} after the scale-out's first rebalance, B warming up 0_0 and 0_1 since then. */
    static TestApplicationState afterSeconds(long seconds) {
        long restored = seconds * RATE / 2;
        return state().stateful(FOUR).client(A, a -> a.active(FOUR))
                .client(B, b -> b.otherLag(1_010_000).standby(task(0, 0), task(0, 1))
                        .lag(task(0, 0), 310_000 - restored).lag(task(0, 1), 1_010_000 - restored))
                .build();
    }
}
