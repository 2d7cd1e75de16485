package io.kscale.admin.cli;

import io.kscale.admin.TopicExpansions.GroupReport;
import io.kscale.admin.TopicExpansions.Outcome;
import io.kscale.admin.TopicExpansions.Plan;
import io.kscale.admin.TopicExpansions.Settlement;
import io.kscale.admin.TopicExpansions.TopicReport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.StringJoiner;

/** The command's output: text for people, and the same facts as JSON maps for programs. */
final class Reports {

    /** How many safe counts a report lists. */
    static final int SAFE_COUNTS_LISTED = 5;

    private Reports() {
    }

    static String text(TopicReport topic) {
        StringBuilder out = new StringBuilder();
        out.append("Topic ").append(topic.topic()).append(": ").append(topic.partitions()).append(" partitions")
                .append(topic.topicId().isEmpty() ? "" : ", id " + topic.topicId()).append('\n');
        out.append("Counts that keep every key of every key-preserving group: multiples of ").append(topic.safeStep())
                .append(' ').append(topic.nextSafeCounts(SAFE_COUNTS_LISTED)).append('\n');
        if (topic.groups().isEmpty()) {
            out.append("No consumer group reads it.\n");
        }
        for (GroupReport group : topic.groups()) {
            out.append('\n').append("Group ").append(group.groupId()).append(": ").append(group.protocol())
                    .append(" protocol, assignor ").append(group.assignor().isEmpty() ? "(none named)" : group.assignor())
                    .append(", ").append(group.memberCount()).append(" members, ").append(group.state()).append('\n');
            if (group.taskCount().isPresent()) {
                out.append("  T=").append(group.taskCount().getAsInt()).append(" (")
                        .append(group.taskCountSource().orElse("")).append(")\n");
                StringJoiner tasks = new StringJoiner(" ");
                group.tasks().forEach((task, partitions) -> tasks.add(task + "=" + partitions));
                out.append("  tasks: ").append(tasks).append('\n');
            }
            group.owners().forEach((member, partitions) ->
                    out.append("  member ").append(member).append(": ").append(partitions).append('\n'));
            out.append("  on expansion: ").append(group.onExpansion()).append('\n');
        }
        return out.toString();
    }

    /** The one line of a refusal: the reasons and the nearest safe counts. */
    static String refusal(Plan plan) {
        StringBuilder line = new StringBuilder("Refused: ").append(String.join("; ", plan.reasons()));
        List<String> nearest = new ArrayList<>();
        plan.nearestBelow().ifPresent(n -> nearest.add(n + " below"));
        plan.nearestAbove().ifPresent(n -> nearest.add(n + " above"));
        if (!nearest.isEmpty()) {
            line.append(". Nearest safe counts: ").append(String.join(", ", nearest));
        }
        return line.append('.').toString();
    }

    /** Before the growth: the groups whose keys move whatever the count, and the forced ones. */
    static List<String> warnings(Plan plan) {
        List<String> lines = new ArrayList<>();
        for (GroupReport group : plan.report().groups()) {
            if (plan.keysMove().contains(group.groupId())) {
                lines.add("Keys move in group " + group.groupId() + ": " + group.onExpansion() + ".");
            }
        }
        for (String group : plan.breaking()) {
            lines.add("Will break group " + group + ": keys move between its tasks.");
        }
        return lines;
    }

    static String table(Outcome outcome) {
        StringBuilder out = new StringBuilder();
        String format = "%-24s %-9s %3s  %-22s %-11s %s%n";
        out.append(String.format(Locale.ROOT, format, "GROUP", "PROTOCOL", "T", "PLACED WITH THEIR TASK", "KEYS SPLIT",
                "TIME TO SETTLE"));
        for (Settlement group : outcome.groups()) {
            out.append(String.format(Locale.ROOT, format, group.groupId(), group.protocol(), group.taskCount(),
                    group.placedWithTask() + " of " + group.newPartitions(),
                    group.keysKept() ? "0" : group.settled() ? "yes" : "unknown",
                    group.timeToSettle().map(Reports::seconds).orElse("not settled")));
        }
        for (Settlement group : outcome.groups()) {
            group.problem().ifPresent(problem -> out.append("Group ").append(group.groupId()).append(": ")
                    .append(problem).append('\n'));
        }
        return out.toString();
    }

    static String seconds(Duration duration) {
        return String.format(Locale.ROOT, "%.1f s", duration.toMillis() / 1000.0);
    }

    static Map<String, Object> json(TopicReport topic) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("topic", topic.topic());
        map.put("topicId", topic.topicId());
        map.put("partitions", topic.partitions());
        map.put("safeStep", topic.safeStep());
        map.put("nextSafeCounts", topic.nextSafeCounts(SAFE_COUNTS_LISTED));
        List<Object> groups = new ArrayList<>();
        for (GroupReport group : topic.groups()) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("group", group.groupId());
            g.put("protocol", group.protocol());
            g.put("assignor", group.assignor());
            g.put("state", group.state());
            g.put("members", group.memberCount());
            g.put("kind", group.kind().name().toLowerCase(Locale.ROOT));
            g.put("taskCount", group.taskCount().isPresent() ? group.taskCount().getAsInt() : null);
            g.put("taskCountSource", group.taskCountSource().orElse(null));
            g.put("problem", group.problem().orElse(null));
            Map<String, Object> tasks = new LinkedHashMap<>();
            group.tasks().forEach((task, partitions) -> tasks.put(Integer.toString(task), partitions));
            g.put("tasks", tasks);
            g.put("owners", new LinkedHashMap<>(group.owners()));
            g.put("onExpansion", group.onExpansion());
            groups.add(g);
        }
        map.put("groups", groups);
        return map;
    }

    static Map<String, Object> json(Plan plan) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("topic", plan.topic());
        map.put("currentPartitions", plan.currentPartitions());
        map.put("partitions", plan.partitions());
        map.put("allowed", plan.allowed());
        map.put("reasons", plan.reasons());
        map.put("breaking", plan.breaking());
        map.put("keysMove", plan.keysMove());
        map.put("nearestBelow", plan.nearestBelow().isPresent() ? plan.nearestBelow().getAsInt() : null);
        map.put("nearestAbove", plan.nearestAbove().isPresent() ? plan.nearestAbove().getAsInt() : null);
        return map;
    }

    static Map<String, Object> json(Outcome outcome, boolean dryRun, boolean forced) {
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("plan", json(outcome.plan()));
        map.put("dryRun", dryRun);
        map.put("forced", forced && !outcome.plan().allowed());
        map.put("expanded", outcome.expanded());
        map.put("settled", outcome.settled());
        List<Object> groups = new ArrayList<>();
        for (Settlement group : outcome.groups()) {
            Map<String, Object> g = new LinkedHashMap<>();
            g.put("group", group.groupId());
            g.put("protocol", group.protocol());
            g.put("taskCount", group.taskCount());
            g.put("settled", group.settled());
            g.put("newPartitions", group.newPartitions());
            g.put("placedWithTask", group.placedWithTask());
            g.put("keysKept", group.keysKept());
            g.put("timeToSettleMs", group.timeToSettle().map(Duration::toMillis).orElse(null));
            g.put("problem", group.problem().orElse(null));
            groups.add(g);
        }
        map.put("groups", groups);
        map.put("producers", outcome.producers());
        return map;
    }
}
