package io.kscale.admin.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code kscale-admin} command: partition expansion as one safe operation.
 *
 * <p>Example: {@code ./kscale-admin describe --bootstrap-server kafka:9092 --topic orders} lists
 * the groups that read {@code orders} with their task counts and the counts that keep every key;
 * {@code ./kscale-admin expand --bootstrap-server kafka:9092 --topic orders --partitions 16} grows
 * it if no key would move, and follows the groups until the new partitions sit with their tasks.
 *
 * <p>Exit codes (also in {@code --help}): 0 done; 1 refused (nothing changed);
 * 2 bad usage; 3 grown, but a group did not settle within the timeout; 4 the cluster could not
 * be asked (connection, authorization, a missing topic).
 */
@Command(name = "kscale-admin",
        mixinStandardHelpOptions = true,
        versionProvider = AdminVersion.class,
        description = "Shows each consumer group's task count of a topic, refuses a partition count that moves keys, "
                + "grows the topic and follows the groups until the new partitions sit with their tasks.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:done (expand: grown, and every key-preserving group settled)",
            "1:refused: the count is not above today's or moves keys of a key-preserving group (nothing changed)",
            "2:bad usage",
            "3:grown, but a group did not settle within --timeout",
            "4:the cluster could not be asked (connection, authorization, no such topic)"},
        subcommands = {DescribeCommand.class, ExpandCommand.class, CommandLine.HelpCommand.class})
public final class KscaleAdmin implements Runnable {

    /** The exit codes, also in every command's --help (2, bad usage, is picocli's). */
    static final int OK = 0;
    static final int REFUSED = 1;
    static final int NOT_SETTLED = 3;
    static final int CLUSTER_ERROR = 4;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        // The command's own log: warnings and errors, to stderr, so that stdout holds the report. Set
        // here, not in a resource of the jar, so that a program using the API keeps its own settings.
        quietLogging("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        quietLogging("org.slf4j.simpleLogger.logFile", "System.err");
        // Kafka's clients warn at every failed connection attempt; the command's one-line error says it once.
        quietLogging("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        System.exit(commandLine().execute(args));
    }

    private static void quietLogging(String property, String value) {
        if (System.getProperty(property) == null) {
            System.setProperty(property, value);
        }
    }

    /** The command tree, for tests and for main. */
    public static CommandLine commandLine() {
        CommandLine line = new CommandLine(new KscaleAdmin()).setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            commandLine.getErr().println("kscale-admin: " + oneLine(e));
            commandLine.getErr().flush();
            return CLUSTER_ERROR;
        });
        return line;
    }

    /** An exception as one line: the innermost message that says something. */
    static String oneLine(Throwable e) {
        Throwable cause = e;
        while (cause.getCause() != null && cause.getCause() != cause
                && (cause.getMessage() == null || cause instanceof java.util.concurrent.ExecutionException)) {
            cause = cause.getCause();
        }
        String message = cause.getMessage() == null ? "" : cause.getMessage().replace('\n', ' ');
        return cause.getClass().getSimpleName() + (message.isEmpty() ? "" : ": " + message);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}
