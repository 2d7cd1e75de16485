package io.kscale.admin.cli;

import io.kscale.admin.TopicExpansions;
import io.kscale.admin.TopicExpansions.Options;
import io.kscale.admin.TopicExpansions.Outcome;
import io.kscale.admin.TopicExpansions.Plan;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code kscale-admin expand}: grows a topic if no key-preserving group's keys move, then follows
 * the groups until each new partition is assigned with its task. Progress goes to stderr when the
 * output is JSON, so that stdout holds the JSON document only.
 */
@Command(name = "expand", mixinStandardHelpOptions = true,
        description = "Grows a topic to --partitions if the count keeps every key of every key-preserving group "
                + "(a multiple of each group's T), then follows those groups until every new partition is assigned to "
                + "the member that holds its task, and prints a table per group.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:grown, and every key-preserving group settled (or a dry run that would be allowed)",
            "1:refused: the count is not above today's or moves keys of a key-preserving group (nothing changed)",
            "2:bad usage",
            "3:grown, but a group did not settle within --timeout",
            "4:the cluster could not be asked"})
final class ExpandCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Option(names = "--topic", required = true, paramLabel = "NAME", description = "The topic to grow.")
    private String topic;

    @Option(names = "--partitions", required = true, paramLabel = "N", description = "The new partition count.")
    private int partitions;

    @Option(names = "--dry-run", description = "Check the count and report; change nothing.")
    private boolean dryRun;

    @Option(names = "--force", description = "Grow the topic even if the count moves keys of key-preserving groups; "
            + "names each group that will break.")
    private boolean force;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT10M",
            converter = DurationConverter.class,
            description = "How long to follow the groups after growing the topic: 90s, 10m, or ISO-8601 such as PT10M "
                    + "(default: 10m; a classic group's leader notices new partitions at its next metadata refresh, "
                    + "metadata.max.age.ms, 5 minutes by default).")
    private Duration timeout;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter progress = cluster.json() ? spec.commandLine().getErr() : out;
        Options options = Options.defaults().withDryRun(dryRun).withForce(force).withTimeout(timeout);
        Outcome outcome;
        try (TopicExpansions expansions = cluster.connect()) {
            Plan plan = expansions.plan(topic, partitions);
            if (plan.allowed() || force) {
                Reports.warnings(plan).forEach(progress::println);
                progress.flush();
            }
            outcome = expansions.expand(topic, partitions, options, line -> {
                progress.println(line);
                progress.flush();
            });
        }
        Plan plan = outcome.plan();
        boolean refused = !plan.allowed() && !(force && plan.partitions() > plan.currentPartitions());
        int exit = refused ? KscaleAdmin.REFUSED : outcome.settled() ? KscaleAdmin.OK : KscaleAdmin.NOT_SETTLED;
        if (exit == KscaleAdmin.REFUSED) {
            spec.commandLine().getErr().println(Reports.refusal(plan)); // the one-line reason, in JSON mode too
            spec.commandLine().getErr().flush();
        }
        if (cluster.json()) {
            out.println(Json.write(Reports.json(outcome, dryRun, force)));
        } else if (outcome.expanded()) {
            out.println();
            out.print(Reports.table(outcome));
            out.println();
            out.println(outcome.producers());
        } else if (plan.allowed()) {
            out.println("Allowed: " + plan.partitions() + " keeps every key of every key-preserving group.");
        }
        out.flush();
        return exit;
    }

    /** 90s, 10m, 2h, 500ms, or ISO-8601 (PT10M). */
    static final class DurationConverter implements picocli.CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(java.util.Locale.ROOT);
            if (v.startsWith("pt") || v.startsWith("p")) {
                return Duration.parse(value.trim().toUpperCase(java.util.Locale.ROOT));
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)(ms|s|m|h)").matcher(v);
            if (!m.matches()) {
                throw new picocli.CommandLine.TypeConversionException("'" + value
                        + "' is not a duration: use 500ms, 90s, 10m, 2h or ISO-8601 (PT10M)");
            }
            long n = Long.parseLong(m.group(1));
            switch (m.group(2)) {
                case "ms":
                    return Duration.ofMillis(n);
                case "s":
                    return Duration.ofSeconds(n);
                case "m":
                    return Duration.ofMinutes(n);
                default:
                    return Duration.ofHours(n);
            }
        }
    }
}
