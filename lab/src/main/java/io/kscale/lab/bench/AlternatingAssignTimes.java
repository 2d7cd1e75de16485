package io.kscale.lab.bench;

import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;

/**
 * {@link ServerAssignorBenchmark}'s cases timed the way a busy machine still answers: kscale and
 * {@code uniform} called alternately in one JVM, each call timed by the CPU time of the whole JVM
 * process (the calling thread's, and the garbage collector's for what the call allocated), so that
 * the other processes' load and the time spent waiting for a core count less than in JMH's
 * wall-clock scores. The process clock ticks coarsely, so each timing is of a batch of calls of one
 * assignor long enough (about 300 ms) to read it. Reports the median and the quartiles of each and
 * the ratio of the medians.
 *
 * <p>Run: {@code java -Xmx8g -cp lab/target/kscale-lab.jar io.kscale.lab.bench.AlternatingAssignTimes
 * 1000000x2000 one-topic join 10} (size, shape, change, timed batches of each after as many warm-up batches,
 * and optionally the racks: {@code none} or {@code 3}).
 */
public final class AlternatingAssignTimes {

    private AlternatingAssignTimes() {
    }

    public static void main(String[] args) {
        if (args.length != 4 && args.length != 5) {
            throw new IllegalArgumentException("usage: <partitions>x<members> one-topic|distinct-topics|mixed|topics "
                    + "fresh|join|leave|grow <calls> [none|3 (racks)]");
        }
        int calls = Integer.parseInt(args[3]);
        ServerAssignorBenchmark kscale = benchmark("kscale", args);
        ServerAssignorBenchmark uniform = benchmark("uniform", args);
        long once = System.nanoTime();
        kscale.assign();
        uniform.assign();
        int batch = (int) Math.max(1, Math.min(10_000, 300_000_000L / Math.max(1, System.nanoTime() - once)));
        OperatingSystemMXBean process = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long[] kscaleNanos = new long[calls];
        long[] uniformNanos = new long[calls];
        for (int i = -calls; i < calls; i++) {
            long k = cpuTime(process, kscale, batch);
            long u = cpuTime(process, uniform, batch);
            if (i >= 0) {
                kscaleNanos[i] = k;
                uniformNanos[i] = u;
            }
        }
        double kscaleMedian = quantile(kscaleNanos, 0.5);
        double uniformMedian = quantile(uniformNanos, 0.5);
        System.out.printf("%s %s %s: kscale %s ms, uniform %s ms (process CPU ms/op, median [quartiles] of %d alternating batches of %d calls); "
                + "kscale/uniform %.2f%n", args[0], args[1], args[2], quartiles(kscaleNanos), quartiles(uniformNanos),
                calls, batch, kscaleMedian / uniformMedian);
    }

    private static ServerAssignorBenchmark benchmark(String assignor, String[] args) {
        ServerAssignorBenchmark benchmark = new ServerAssignorBenchmark();
        benchmark.assignor = assignor;
        benchmark.size = args[0];
        benchmark.shape = args[1];
        benchmark.change = args[2];
        benchmark.racks = args.length == 5 ? args[4] : "none";
        benchmark.setUp();
        return benchmark;
    }

    /** @return process CPU nanoseconds per call, over a batch of calls */
    private static long cpuTime(OperatingSystemMXBean process, ServerAssignorBenchmark benchmark, int batch) {
        long start = process.getProcessCpuTime();
        for (int i = 0; i < batch; i++) {
            if (benchmark.assign().members().isEmpty()) {
                throw new IllegalStateException("empty assignment");
            }
        }
        return (process.getProcessCpuTime() - start) / batch;
    }

    private static String quartiles(long[] nanos) {
        return String.format("%.2f [%.2f, %.2f]", quantile(nanos, 0.5) / 1e6, quantile(nanos, 0.25) / 1e6,
                quantile(nanos, 0.75) / 1e6);
    }

    private static double quantile(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))];
    }
}
