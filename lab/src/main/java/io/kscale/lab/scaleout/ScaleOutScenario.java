package io.kscale.lab.scaleout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;

/**
 * KIP-441's problem on a real cluster: a stateful Kafka Streams application (a count and the latest
 * value per key, in a persistent store with a changelog) runs on one instance; while a producer
 * writes at a steady pace, more instances join. A task that moves to an instance without its state
 * stops until the new owner has restored the store from the changelog; a warmup-aware assignor
 * keeps it on the caught-up owner until a copy on the new instance has caught up, then moves it.
 *
 * <p>Measured per assignor: the seconds during which any active task was restoring after the
 * scale-out (downtime), the seconds until every instance has its share of the tasks and keeps it,
 * the processing rate through the transition, and whether every key's final count is right.
 *
 * <p>Each assignor gets its own input topic, application id and state directories on the same
 * cluster. By default they run side by side, so that all of them see the same cluster load and the
 * probing intervals they wait for overlap (three times a minute or two one after the other is too
 * long for a test); {@link ScaleOutSettings#parallel()} false runs them one after the other. The
 * lab prints the returned runs; the integration test asserts on them.
 */
public final class ScaleOutScenario {

    private final ScaleOutSettings settings;

    public ScaleOutScenario(ScaleOutSettings settings) {
        this.settings = settings;
    }

    /**
     * Runs every assignor of the settings on a cluster.
     *
     * @param clientProperties connection settings of the cluster (bootstrap servers, security)
     * @return one run per assignor, in the order of the settings
     * @throws IllegalStateException if a run could not be carried out (a topic not created, the
     *         first instance not catching up in time); a run that does not balance in time is a
     *         result, not an error
     */
    public List<ScaleOutRun> runOn(Map<String, Object> clientProperties) {
        String runId = Long.toString(System.currentTimeMillis(), 36);
        List<ScaleOutRun> runs = new ArrayList<>();
        try {
            if (!settings.parallel()) {
                for (ScaleOutPeer peer : settings.peers()) {
                    runs.add(new PeerRun(peer, settings, runId, clientProperties).run());
                }
                return runs;
            }
            ExecutorService pool = Executors.newFixedThreadPool(settings.peers().size(), runnable -> {
                Thread thread = new Thread(runnable, "kscale-scale-out-peer");
                thread.setDaemon(true);
                return thread;
            });
            try {
                List<Future<ScaleOutRun>> futures = new ArrayList<>();
                for (ScaleOutPeer peer : settings.peers()) {
                    futures.add(pool.submit(() -> new PeerRun(peer, settings, runId, clientProperties).run()));
                }
                List<Throwable> failures = new ArrayList<>();
                for (Future<ScaleOutRun> future : futures) {
                    try {
                        runs.add(future.get());
                    } catch (ExecutionException e) {
                        failures.add(e.getCause());
                    }
                }
                if (!failures.isEmpty()) {
                    IllegalStateException failure = new IllegalStateException("the scale-out scenario failed: "
                            + failures.get(0), failures.get(0));
                    failures.stream().skip(1).forEach(failure::addSuppressed);
                    throw failure;
                }
                return runs;
            } finally {
                pool.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not run the scale-out scenario: " + e, e);
        }
    }
}
