package io.kscale.lab.expansion;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A consumer outside this JVM that the expansion scenario can run as its group's members, one
 * child process per member, to check another client against the same broker-side assignment.
 * The scenario appends {@code <bootstrap> <topic> <group.id> <client.id> <group.remote.assignor>}
 * to {@link #command()}; the process joins the group with {@code group.protocol=consumer} and
 * prints one tab-separated line per event on stdout ({@link ProcessMember} reads them):
 *
 * <pre>
 * ready    &lt;client version&gt;
 * assigned &lt;topic&gt;:&lt;partition&gt;,...
 * revoked  &lt;topic&gt;:&lt;partition&gt;,...
 * record   &lt;topic&gt; &lt;partition&gt; &lt;offset&gt; &lt;key, base64&gt; &lt;value, base64&gt;
 * error    &lt;message&gt;
 * </pre>
 *
 * <p>It leaves the group and exits when its stdin ends. Example: the librdkafka member of the
 * integration tests, {@code new MemberCommand("librdkafka", List.of("node", "member.js"),
 * Map.of("NODE_PATH", "<client>/node_modules"), workDir)}. Plaintext clusters only: the
 * command gets the bootstrap address and nothing else of the connection settings.
 */
public final class MemberCommand {

    private final String label;
    private final List<String> command;
    private final Map<String, String> environment;
    private final Path directory;

    /**
     * @param label what the members run, for logs (e.g. {@code librdkafka 2.15.1})
     * @param command the program and its first arguments
     * @param environment variables added to this JVM's for the child
     * @param directory the child's working directory
     */
    public MemberCommand(String label, List<String> command, Map<String, String> environment, Path directory) {
        if (command.isEmpty()) {
            throw new IllegalArgumentException("a member command needs a program");
        }
        this.label = Objects.requireNonNull(label);
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.directory = Objects.requireNonNull(directory);
    }

    public String label() {
        return label;
    }

    public List<String> command() {
        return command;
    }

    public Map<String, String> environment() {
        return environment;
    }

    public Path directory() {
        return directory;
    }

    @Override
    public String toString() {
        return label + " (" + String.join(" ", command) + ")";
    }
}
