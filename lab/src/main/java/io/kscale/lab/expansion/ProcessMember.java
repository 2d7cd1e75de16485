package io.kscale.lab.expansion;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member of the counting group in a child process that runs a {@link MemberCommand}: a thread
 * here reads the child's event lines and counts its records as {@link KafkaConsumerMember} counts
 * its own polls. For example the line {@code record\tt\t3\t17\ta2V5LTU=\tAAAAAAAAAAk=} counts
 * record 9 of {@code key-5}. The child owns its commits (the command's contract); a member stops
 * by closing the child's stdin, and a child that outlives {@link #CLOSE_TIMEOUT_SECONDS} is killed
 * with its own children. A child that ends on its own while the member runs fails the member.
 */
final class ProcessMember extends CountingMember {

    private static final Logger log = LoggerFactory.getLogger(ProcessMember.class);
    private static final long CLOSE_TIMEOUT_SECONDS = 20;
    /** How long a child whose stdout ended may take to exit before its failure is reported without its code. */
    private static final long EXIT_WAIT_SECONDS = 5;

    private final Process process;
    private final Thread reader;
    private volatile boolean stopping;

    ProcessMember(String id, String topic, String groupId, ExpansionPeer peer, MemberCommand command,
                  Map<String, Object> clientProperties, Map<String, Set<Long>> received, KeyOrder order,
                  OwnershipTimeline timeline) {
        super(id, received, order, timeline);
        if (!peer.isServerSide()) {
            throw new IllegalArgumentException(command.label() + " members speak the consumer protocol only, not "
                    + peer.label());
        }
        Object protocol = clientProperties.getOrDefault(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "PLAINTEXT");
        if (!"PLAINTEXT".equals(String.valueOf(protocol))) {
            throw new IllegalArgumentException(command.label() + " members run on plaintext clusters only, not "
                    + protocol);
        }
        List<String> line = new ArrayList<>(command.command());
        line.addAll(List.of(String.valueOf(clientProperties.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)), topic,
                groupId, groupId + "-" + id, peer.assignor()));
        ProcessBuilder builder = new ProcessBuilder(line).directory(command.directory().toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        builder.environment().putAll(command.environment());
        try {
            this.process = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command + ": " + e.getMessage(), e);
        }
        this.reader = new Thread(this::read, "kscale-expansion-" + id + "-reader");
        this.reader.setDaemon(true);
        this.reader.start();
    }

    private void read() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                handle(line.split("\t", -1));
            }
        } catch (IOException | RuntimeException e) {
            if (!stopping) {
                failed(e);
            }
            return;
        }
        if (!stopping) {
            failed(new IllegalStateException("the member's process ended on its own" + exitCode()));
        }
    }

    /** The exit code, once the child is reaped: its stdout can end a moment before it is. */
    private String exitCode() {
        try {
            return process.waitFor(EXIT_WAIT_SECONDS, TimeUnit.SECONDS) ? " with exit code " + process.exitValue() : "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private void handle(String[] fields) {
        switch (fields[0]) {
            case "record":
                String key = new String(Base64.getDecoder().decode(fields[4]), StandardCharsets.UTF_8);
                count(key, ByteBuffer.wrap(Base64.getDecoder().decode(fields[5])).getLong());
                break;
            case "assigned":
                assigned(partitions(fields[1]));
                break;
            case "revoked":
                released(partitions(fields[1]));
                break;
            case "ready":
                log.info("{}: {} started", id(), fields.length > 1 ? fields[1] : "?");
                break;
            default:
                log.warn("{}: {}", id(), String.join(" ", fields));
        }
    }

    /** @return the partitions of {@code topic:partition,...} */
    static List<TopicPartition> partitions(String list) {
        List<TopicPartition> partitions = new ArrayList<>();
        if (list.isEmpty()) {
            return partitions;
        }
        for (String entry : list.split(",")) {
            int colon = entry.lastIndexOf(':');
            partitions.add(new TopicPartition(entry.substring(0, colon), Integer.parseInt(entry.substring(colon + 1))));
        }
        return partitions;
    }

    /** Closes the child's stdin: it leaves the group and exits. */
    @Override
    void stop() {
        stopping = true;
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already gone
        }
    }

    @Override
    public void close() {
        stop();
        try {
            if (!process.waitFor(CLOSE_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                log.warn("{}: still running {} s after its stdin closed; killing it", id(), CLOSE_TIMEOUT_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
        try {
            // Its stdout ends with the process: the reader has at most the last lines to read.
            reader.join(TimeUnit.SECONDS.toMillis(CLOSE_TIMEOUT_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
