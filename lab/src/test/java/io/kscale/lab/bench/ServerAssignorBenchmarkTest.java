package io.kscale.lab.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The benchmark's inputs are what its comment says: every shape, change and rack setting builds a
 * group that both assignors assign in full (setUp checks the count; with the store not loaded,
 * that members keep their targets), small enough for the build.
 */
class ServerAssignorBenchmarkTest {

    @ParameterizedTest
    @ValueSource(strings = {"one-topic", "distinct-topics", "mixed", "topics"})
    void shouldBuildAGroupThatBothAssignorsAssignInFullForEveryChange(String shape) {
        for (String change : new String[] {"fresh", "join", "leave", "grow"}) {
            for (String racks : new String[] {"none", "3"}) {
                for (String assignor : new String[] {"kscale", "kscale-builder", "kscale-held", "uniform"}) {
                    ServerAssignorBenchmark benchmark = new ServerAssignorBenchmark();
                    benchmark.assignor = assignor;
                    benchmark.size = "400x8";
                    benchmark.shape = shape;
                    benchmark.change = change;
                    benchmark.racks = racks;
                    benchmark.setUp(); // throws unless every partition is assigned
                    assertThat(benchmark.assign().members()).as("%s %s %s %s", assignor, shape, change, racks)
                            .hasSize(change.equals("join") ? 9 : change.equals("leave") ? 7 : 8);
                }
            }
        }
    }

    @Test
    void distinctTopicsHaveDistinctCountsThatSumToTheSquare() {
        int side = 100;
        assertThat(IntStream.range(0, side).map(t -> ServerAssignorBenchmark.distinctCount(side, t)).distinct().count())
                .isEqualTo(side);
        assertThat(IntStream.range(0, side).map(t -> ServerAssignorBenchmark.distinctCount(side, t)).sum())
                .isEqualTo(side * side);
        assertThat(IntStream.range(0, side).map(t -> ServerAssignorBenchmark.distinctCount(side, t)).min().orElseThrow())
                .isPositive();
    }

    @Test
    void shouldRefuseAShapeOfTopicsWithoutAnEvenSquare() {
        ServerAssignorBenchmark benchmark = new ServerAssignorBenchmark();
        benchmark.assignor = "kscale";
        benchmark.size = "121x8";
        benchmark.shape = "distinct-topics";
        benchmark.change = "fresh";
        benchmark.racks = "none";
        assertThatThrownBy(benchmark::setUp).hasMessageContaining("even square");
    }
}
