package io.kscale.it.stateful;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What one run measured. Times are wall-clock on a shared machine: printed for the record,
 * compared within one run, never asserted.
 */
public final class ScaleOutResult {

    final ScaleOutPeer peer;
    /** Every assignment as active after the scale-out began, with the records its new owner still had to restore. */
    final List<HandOffLog.Event> assignmentsAfterScaleOut;
    final Optional<Long> balancedAfterMs;
    final long largestActiveRestoreRecords;
    final long longestActiveRestoreMs;
    /** Longest time a moved task processed nothing: from its revocation to its new owner being ready. */
    final long longestHandOffGapMs;
    final List<Integer> finalTasksPerMember;
    final int keys;
    final int wrongCounts;
    final int keysOnTwoMembers;
    final long processedWhileRestoring;
    final List<String> failures;

    ScaleOutResult(ScaleOutPeer peer, List<HandOffLog.Event> events, long scaleOutAt, Optional<Long> balancedAt,
            List<Integer> finalTasksPerMember, Map<String, Long> expected, List<Map<String, Long>> countsByMember,
            long processedWhileRestoring, List<String> failures) {
        this.peer = peer;
        this.assignmentsAfterScaleOut = new ArrayList<>();
        long largestRecords = 0;
        long longestRestore = 0;
        long longestGap = 0;
        for (int i = 0; i < events.size(); i++) {
            HandOffLog.Event event = events.get(i);
            if (event.atMs < scaleOutAt || event.kind != HandOffLog.Kind.READY && event.kind != HandOffLog.Kind.ASSIGNED) {
                continue;
            }
            if (event.kind == HandOffLog.Kind.ASSIGNED) {
                assignmentsAfterScaleOut.add(event);
                largestRecords = Math.max(largestRecords, event.recordsToRestore);
                continue;
            }
            Optional<HandOffLog.Event> assigned = previous(events, i, HandOffLog.Kind.ASSIGNED, event.task, event.member, true);
            Optional<HandOffLog.Event> revoked = previous(events, i, HandOffLog.Kind.REVOKED, event.task, event.member, false);
            if (assigned.isPresent()) {
                longestRestore = Math.max(longestRestore, event.atMs - assigned.get().atMs);
            }
            if (revoked.isPresent()) {
                longestGap = Math.max(longestGap, event.atMs - revoked.get().atMs);
            }
        }
        this.balancedAfterMs = balancedAt.map(at -> at - scaleOutAt);
        this.largestActiveRestoreRecords = largestRecords;
        this.longestActiveRestoreMs = longestRestore;
        this.longestHandOffGapMs = longestGap;
        this.finalTasksPerMember = finalTasksPerMember;
        this.keys = expected.size();
        int wrong = 0;
        int twice = 0;
        for (Map.Entry<String, Long> entry : expected.entrySet()) {
            long holders = countsByMember.stream().filter(counts -> counts.containsKey(entry.getKey())).count();
            twice += holders > 1 ? 1 : 0;
            Long counted = countsByMember.stream().map(counts -> counts.get(entry.getKey()))
                    .filter(c -> c != null).findFirst().orElse(0L);
            wrong += counted.equals(entry.getValue()) ? 0 : 1;
        }
        this.wrongCounts = wrong;
        this.keysOnTwoMembers = twice;
        this.processedWhileRestoring = processedWhileRestoring;
        this.failures = failures;
    }

    /** The latest event of a kind for the task before index i, on the member ({@code same}) or another. */
    private static Optional<HandOffLog.Event> previous(List<HandOffLog.Event> events, int i, HandOffLog.Kind kind,
            int task, String member, boolean same) {
        for (int j = i - 1; j >= 0; j--) {
            HandOffLog.Event candidate = events.get(j);
            if (candidate.kind == kind && candidate.task == task && candidate.member.equals(member) == same) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    public ScaleOutPeer peer() {
        return peer;
    }

    /** @return per assignment as active after the scale-out began, the records its new owner had to restore */
    public List<Long> restoresAfterScaleOut() {
        List<Long> records = new ArrayList<>();
        assignmentsAfterScaleOut.forEach(event -> records.add(event.recordsToRestore));
        return records;
    }

    public Optional<Long> balancedAfterMs() {
        return balancedAfterMs;
    }

    public long largestActiveRestoreRecords() {
        return largestActiveRestoreRecords;
    }

    public List<Integer> finalTasksPerMember() {
        return finalTasksPerMember;
    }

    public int keys() {
        return keys;
    }

    public int wrongCounts() {
        return wrongCounts;
    }

    public int keysOnTwoMembers() {
        return keysOnTwoMembers;
    }

    public long processedWhileRestoring() {
        return processedWhileRestoring;
    }

    public List<String> failures() {
        return failures;
    }

    public String row() {
        return String.format("%-34s %12s %16d %16d %14d %10s %6d", peer.label(),
                balancedAfterMs.map(ms -> String.format("%.1f", ms / 1000.0)).orElse("never"),
                largestActiveRestoreRecords, longestActiveRestoreMs, longestHandOffGapMs, finalTasksPerMember,
                wrongCounts);
    }

    public static String header() {
        return String.format("%-34s %12s %16s %16s %14s %10s %6s", "assignor", "balanced s", "restore active",
                "restore act. ms", "hand-off gap ms", "tasks", "wrong");
    }

    @Override
    public String toString() {
        return peer.label() + ": balanced after " + balancedAfterMs.map(ms -> ms + " ms").orElse("never")
                + ", largest restore of a newly active task " + largestActiveRestoreRecords + " records ("
                + longestActiveRestoreMs + " ms), longest hand-off gap " + longestHandOffGapMs + " ms, final tasks "
                + finalTasksPerMember + ", keys " + keys + ", wrong counts " + wrongCounts + ", keys on two members "
                + keysOnTwoMembers + ", records handed while restoring " + processedWhileRestoring + ", failures "
                + failures + ", assignments after the scale-out " + assignmentsAfterScaleOut;
    }
}
