package io.kscale.lab.scaleout;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/** Hand-built runs for the report and run tests: 6 tasks, 1 -> 3 instances, 500 records/s. */
final class ScaleOutRuns {

    static final int PARTITIONS = 6;
    static final int RATE = 500;

    /** Balanced after 70.5 s through warmups: two restorations of one record each, no problem. */
    static final ScaleOutRun KSCALE = new ScaleOutRun(ScaleOutPeer.KSCALE, PARTITIONS, 3, RATE, 1_000, 150,
            OptionalDouble.of(70.5), List.of(2, 2, 2),
            List.of(new ActiveRestore("instance-1", 0, 64.0, 64.1, 1, 1, ActiveRestore.End.RESTORED),
                    new ActiveRestore("instance-1", 1, 64.0, 64.05, 0, 0, ActiveRestore.End.RESTORED)),
            4, 4, new CountCheck(20_000, 0, 0, 140_000, 140_000),
            timeline(new int[][] {{6, 0, 0}, {6, 0, 0}, {4, 2, 0}, {2, 2, 2}}, new int[][] {{0, 0, 0}, {0, 2, 2},
                {0, 0, 2}, {0, 0, 0}}, new int[] {0, 0, 0, 0}, new double[] {500, 480, 0, 520}), List.of());

    /** Balanced after 10.8 s by moving tasks at once: four overlapping restorations of whole changelogs. */
    static final ScaleOutRun STICKY = new ScaleOutRun(ScaleOutPeer.STICKY, PARTITIONS, 3, RATE, 1_000, 150,
            OptionalDouble.of(10.8), List.of(2, 2, 2),
            List.of(new ActiveRestore("instance-1", 0, 7.0, 9.0, 16_673, 16_673, ActiveRestore.End.RESTORED),
                    new ActiveRestore("instance-1", 1, 7.5, 10.0, 16_500, 16_500, ActiveRestore.End.RESTORED),
                    new ActiveRestore("instance-2", 2, 12.0, 13.0, 16_000, 16_000, ActiveRestore.End.RESTORED)),
            0, 2, new CountCheck(20_000, 0, 0, 110_000, 110_000),
            timeline(new int[][] {{6, 0, 0}, {2, 2, 2}, {2, 2, 2}, {2, 2, 2}}, new int[][] {{0, 0, 0}, {0, 0, 0},
                {0, 0, 0}, {0, 0, 0}}, new int[] {0, 4, 0, 0}, new double[] {500, 100, 1900, 500}), List.of());

    /** Not balanced within 150 s, with wrong counts and a problem with a markup character. */
    static final ScaleOutRun HIGH_AVAILABILITY = new ScaleOutRun(ScaleOutPeer.HIGH_AVAILABILITY, PARTITIONS, 3, RATE,
            1_000, 150, OptionalDouble.empty(), List.of(4, 1, 1), List.of(), 2, 3,
            new CountCheck(20_000, 3, 0, 170_000, 169_990),
            timeline(new int[][] {{6, 0, 0}, {6, 0, 0}, {4, 1, 1}, {4, 1, 1}}, new int[][] {{0, 0, 0}, {0, 1, 1},
                {0, 1, 1}, {0, 1, 1}}, new int[] {0, 0, 0, 0}, new double[] {500, 500, 500, 500}),
            List.of("not balanced within 150 s: actives [4, 1, 1] <still warming>"));

    private ScaleOutRuns() {
    }

    /** Samples at -1, 5, 65 and 75 s. */
    static List<Sample> timeline(int[][] actives, int[][] standbys, int[] restoring, double[] rates) {
        double[] seconds = {-1, 5, 65, 75};
        List<Sample> samples = new ArrayList<>();
        for (int k = 0; k < seconds.length; k++) {
            samples.add(new Sample(seconds[k], List.of(actives[k][0], actives[k][1], actives[k][2]),
                    List.of(standbys[k][0], standbys[k][1], standbys[k][2]), restoring[k], rates[k], 10L * k));
        }
        return samples;
    }
}
