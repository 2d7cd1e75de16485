package io.kscale.lab.expansion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ProcessMember} against a shell script that prints the member protocol's lines, so the
 * parsing and the process's lifecycle are checked without a broker or a built client.
 */
class ProcessMemberTest {

    private static final Map<String, Object> PLAINTEXT = Map.of("bootstrap.servers", "127.0.0.1:9");

    /** Record 9 of key-5 on t-0, t-0 and t-1 assigned, t-1 revoked; then waits for stdin to end. */
    private static final String SCRIPT = "printf 'ready\\tfake 1.0\\nassigned\\tt:0,t:1\\n"
            + "record\\tt\\t0\\t17\\ta2V5LTU=\\tAAAAAAAAAAk=\\nrevoked\\tt:1\\n'; cat > /dev/null";

    private final Map<String, Set<Long>> received = new ConcurrentHashMap<>();

    @Test
    void shouldCountTheRecordsAndTrackThePartitionsTheChildReports() {
        try (ProcessMember member = member(SCRIPT)) {
            await().atMost(Duration.ofSeconds(30)).until(() -> member.rebalances() == 1
                    && member.owned().equals(Set.of(new TopicPartition("t", 0))));

            assertThat(member.counts()).isEqualTo(Map.of("key-5", 1L));
            assertThat(member.lastSequences()).isEqualTo(Map.of("key-5", 9L));
            assertThat(received).isEqualTo(Map.of("key-5", Set.of(9L)));
        }
    }

    @Test
    void shouldEndTheChildWhenClosed(@TempDir Path dir) throws Exception {
        Path pidFile = dir.resolve("pid");
        ProcessMember member = member("echo $$ > '" + pidFile + "'; " + SCRIPT);
        await().atMost(Duration.ofSeconds(30)).until(() -> member.rebalances() == 1);
        long pid = Long.parseLong(Files.readString(pidFile).trim());
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive)).as("the child before close").hasValue(true);

        member.close();

        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("the child after close").isFalse();
    }

    @Test
    void shouldFailTheMemberWhenTheChildEndsOnItsOwn() {
        try (ProcessMember member = member("printf 'assigned\\tt:0\\n'; exit 3")) {
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThatThrownBy(member::isSettled)
                    .hasMessageContaining("ended on its own with exit code 3"));
        }
    }

    @Test
    void shouldRefuseAClassicProtocolPeer() {
        assertThatThrownBy(() -> new ProcessMember("member-0", "t", "g", ExpansionPeer.RANGE, command(SCRIPT),
                PLAINTEXT, received, new KeyOrder(), new OwnershipTimeline()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("consumer protocol only");
    }

    private ProcessMember member(String script) {
        return new ProcessMember("member-0", "t", "g", ExpansionPeer.SERVER_UNIFORM, command(script), PLAINTEXT,
                received, new KeyOrder(), new OwnershipTimeline());
    }

    /** The member appends five arguments: to {@code sh -c}, they are $0 to $4, which the script ignores. */
    private static MemberCommand command(String script) {
        return new MemberCommand("fake", List.of("sh", "-c", script), Map.of(), Path.of("."));
    }
}
