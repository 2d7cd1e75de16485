package io.kscale.lab.cluster;

import com.github.dockerjava.api.command.InspectContainerResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * Starts single-broker Kafka containers several at once and reports how each start ended: the
 * measurement behind {@link GatedStartKafkaContainer} (testcontainers-java issue 11682 strikes
 * only under load). Each container is Testcontainers' default single-node KRaft broker; nothing
 * connects to it: a start counts as good when its log says the broker runs.
 */
public final class ContainerStartTrial {

    /** Which container class starts the broker. */
    public enum Kind {
        /** Testcontainers' own {@link KafkaContainer}: executes its start script as soon as it exists. */
        PLAIN,
        /** kscale's {@link GatedStartKafkaContainer}: reads the script once it is complete. */
        GATED;

        KafkaContainer newContainer(DockerImageName image) {
            return this == PLAIN ? new KafkaContainer(image) : new GatedStartKafkaContainer(image);
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How one start ended: {@code failure} is null for a broker that came up. */
    public static final class Outcome {
        public final Kind kind;
        public final long millis;
        public final String failure;

        Outcome(Kind kind, long millis, String failure) {
            this.kind = kind;
            this.millis = millis;
            this.failure = failure;
        }

        /** The kernel's refusal to execute a file open for writing, the race's signature. */
        public boolean textFileBusy() {
            return failure != null && failure.contains("Text file busy");
        }
    }

    private final DockerImageName image;
    private final Duration startupTimeout;

    public ContainerStartTrial(String image, Duration startupTimeout) {
        this.image = DockerImageName.parse(image).asCompatibleSubstituteFor("apache/kafka");
        this.startupTimeout = startupTimeout;
    }

    /** Starts {@code count} containers of one kind at once, waits for each, removes them all. */
    public List<Outcome> startTogether(Kind kind, int count) {
        List<KafkaContainer> containers = new ArrayList<>();
        List<CompletableFuture<Outcome>> starts = new ArrayList<>();
        String trialName = "start-trial-" + ProcessHandle.current().pid();
        for (int i = 0; i < count; i++) {
            KafkaContainer container = kind.newContainer(image)
                    .withLabels(ContainerReaper.labels(trialName))
                    .withStartupTimeout(startupTimeout);
            containers.add(container);
            starts.add(CompletableFuture.supplyAsync(() -> start(kind, container)));
        }
        try {
            List<Outcome> outcomes = new ArrayList<>();
            for (CompletableFuture<Outcome> start : starts) {
                outcomes.add(start.join());
            }
            return outcomes;
        } finally {
            containers.forEach(ContainerRemoval::stop);
        }
    }

    private static Outcome start(Kind kind, KafkaContainer container) {
        long begin = System.nanoTime();
        try {
            container.start();
            return new Outcome(kind, elapsedMillis(begin), null);
        } catch (RuntimeException e) {
            return new Outcome(kind, elapsedMillis(begin), describeFailure(container, e));
        }
    }

    /** The container's exit code and last log line where it exited, else the exception. */
    private static String describeFailure(KafkaContainer container, RuntimeException e) {
        try {
            InspectContainerResponse.ContainerState state = container.getCurrentContainerInfo().getState();
            String logs = container.getLogs().strip();
            String lastLine = logs.substring(logs.lastIndexOf('\n') + 1);
            return "exit code " + state.getExitCodeLong() + ": " + lastLine;
        } catch (RuntimeException inspectFailed) {
            return e.toString();
        }
    }

    private static long elapsedMillis(long beginNanos) {
        return Duration.ofNanos(System.nanoTime() - beginNanos).toMillis();
    }
}
