package io.kscale.admin.cli;

import io.kscale.admin.TopicExpansions;
import io.kscale.admin.TopicExpansions.TopicReport;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code kscale-admin describe}: the groups of a topic, their task counts, and the safe counts. */
@Command(name = "describe", mixinStandardHelpOptions = true,
        description = "For each topic: every consumer group that reads it, with its protocol, assignor and task count T, "
                + "the partitions of each task, and the partition counts that keep every key of every "
                + "key-preserving group. Groups on other assignors and Kafka Streams applications are listed with what "
                + "an expansion does to them.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {"0:described", "2:bad usage", "4:the cluster could not be asked"})
final class DescribeCommand implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Mixin
    private ClusterOptions cluster;

    @Option(names = "--topic", paramLabel = "NAME",
            description = "The topic to describe. Default: every topic that a consumer group reads.")
    private String topic;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        List<TopicReport> reports;
        try (TopicExpansions expansions = cluster.connect()) {
            reports = topic == null ? expansions.describe() : List.of(expansions.describe(topic));
        }
        if (cluster.json()) {
            List<Map<String, Object>> topics = new ArrayList<>();
            reports.forEach(report -> topics.add(Reports.json(report)));
            out.println(Json.write(Map.of("topics", topics)));
        } else if (reports.isEmpty()) {
            out.println("No consumer group reads any topic.");
        } else {
            for (int i = 0; i < reports.size(); i++) {
                out.print((i == 0 ? "" : "\n") + Reports.text(reports.get(i)));
            }
        }
        out.flush();
        return KscaleAdmin.OK;
    }
}
