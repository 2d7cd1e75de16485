package io.kscale.assignor.internals.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;

/**
 * How many topics each member of a fresh group reads, and how many partitions end on a member of
 * their replica's rack, for kscale and for Kafka's {@code uniform} on the same input (a
 * measurement, not a test: it asserts nothing). 100 topics of 50 to 149 partitions (9,950, none
 * co-partitioned), read by 50 members; then the same with members in 3 racks (member i in rack
 * i % 3) and partition p's replica on rack p % 3. Every topic a member reads is a map entry in
 * its assignment, read back on every later call, and a topic its consumer fetches from.
 *
 * <p>Run: {@code mvn -B -q -pl assignor test-compile dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp.txt} and then {@code java -cp
 * assignor/target/test-classes:assignor/target/classes:$(cat /tmp/cp.txt)
 * io.kscale.assignor.internals.server.TopicsPerMember}.
 */
public final class TopicsPerMember {

    private static final int TOPICS = 100;
    private static final int MEMBERS = 50;
    private static final int RACKS = 3;

    private TopicsPerMember() {
    }

    public static void main(String[] args) {
        for (boolean inRacks : new boolean[] {false, true}) {
            TestGroup group = new TestGroup();
            List<Uuid> topics = new ArrayList<>();
            for (int t = 0; t < TOPICS; t++) {
                Uuid id = new Uuid(7, t);
                topics.add(id);
                group.topic(id, 50 + t);
                if (inRacks) {
                    group.replicasOn(id, "r0", "r1", "r2");
                }
            }
            for (int m = 0; m < MEMBERS; m++) {
                String id = String.format("m%03d", m);
                group.member(id, topics);
                if (inRacks) {
                    group.rack(id, rackOf(id));
                }
            }
            GroupAssignment kscale = new ServerAssignmentBuilder(group.spec(), group.describer(),
                    new InMemoryTaskCountStore(), new TaskCountLog(), new ServerAssignorMetrics(() -> 0)).build();
            GroupAssignment uniform = new UniformAssignor().assign(group.spec(), group.describer());
            System.out.printf("%s: kscale %.1f topics per member, %d partitions rack-local; uniform %.1f, %d%n",
                    inRacks ? "3 racks" : "no racks", topicsPerMember(kscale), rackLocal(kscale),
                    topicsPerMember(uniform), rackLocal(uniform));
        }
    }

    private static String rackOf(String member) {
        return "r" + Integer.parseInt(member.substring(1)) % RACKS;
    }

    private static double topicsPerMember(GroupAssignment assignment) {
        return assignment.members().values().stream().mapToInt(m -> m.partitions().size()).average().orElse(0);
    }

    /** @return the partitions on a member of their replica's rack, as if the members were in racks */
    private static int rackLocal(GroupAssignment assignment) {
        int local = 0;
        for (Map.Entry<String, MemberAssignment> member : assignment.members().entrySet()) {
            for (Set<Integer> partitions : member.getValue().partitions().values()) {
                for (int p : partitions) {
                    local += rackOf(member.getKey()).equals("r" + p % RACKS) ? 1 : 0;
                }
            }
        }
        return local;
    }
}
