package io.kscale.lab.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/**
 * {@link ServerAssignorBenchmark}'s cases timed the way a busy machine still answers: kscale and
 * {@code uniform} called alternately in one JVM, each call timed by the calling thread's CPU time
 * (so the other processes' load and the time the thread waits for a core count less than in
 * JMH's wall-clock scores), reporting the median and the quartiles of each and the ratio of the
 * medians. Work done on other threads (the garbage collector's) is not counted: JMH's
 * {@code -prof gc} tells allocation.
 *
 * <p>Run: {@code java -Xmx8g -cp lab/target/kscale-lab.jar io.kscale.lab.bench.AlternatingAssignTimes
 * 1000000x2000 one-topic join 20} (size, shape, change, timed calls of each after as many warm-up calls).
 */
public final class AlternatingAssignTimes {

    private AlternatingAssignTimes() {
    }

    public static void main(String[] args) {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: <partitions>x<members> topics|one-topic fresh|join <calls>");
        }
        int calls = Integer.parseInt(args[3]);
        ServerAssignorBenchmark kscale = benchmark("kscale", args);
        ServerAssignorBenchmark uniform = benchmark("uniform", args);
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long[] kscaleNanos = new long[calls];
        long[] uniformNanos = new long[calls];
        for (int i = -calls; i < calls; i++) {
            long k = cpuTime(threads, kscale);
            long u = cpuTime(threads, uniform);
            if (i >= 0) {
                kscaleNanos[i] = k;
                uniformNanos[i] = u;
            }
        }
        double kscaleMedian = quantile(kscaleNanos, 0.5);
        double uniformMedian = quantile(uniformNanos, 0.5);
        System.out.printf("%s %s %s: kscale %s ms, uniform %s ms (CPU ms/op, median [quartiles] of %d alternating calls); "
                + "kscale/uniform %.2f%n", args[0], args[1], args[2], quartiles(kscaleNanos), quartiles(uniformNanos),
                calls, kscaleMedian / uniformMedian);
    }

    private static ServerAssignorBenchmark benchmark(String assignor, String[] args) {
        ServerAssignorBenchmark benchmark = new ServerAssignorBenchmark();
        benchmark.assignor = assignor;
        benchmark.size = args[0];
        benchmark.shape = args[1];
        benchmark.change = args[2];
        benchmark.setUp();
        return benchmark;
    }

    private static long cpuTime(ThreadMXBean threads, ServerAssignorBenchmark benchmark) {
        long start = threads.getCurrentThreadCpuTime();
        if (benchmark.assign().members().isEmpty()) {
            throw new IllegalStateException("empty assignment");
        }
        return threads.getCurrentThreadCpuTime() - start;
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
