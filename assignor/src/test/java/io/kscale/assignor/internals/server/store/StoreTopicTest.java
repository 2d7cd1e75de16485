package io.kscale.assignor.internals.server.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StoreTopicTest {

    @Test
    void shouldAcceptOnlyALogThatIsNeitherCompactedNorExpired() {
        assertThat(StoreTopic.problem("delete", "-1", "-1")).isNull();
        assertThat(StoreTopic.problem("compact", "-1", "-1")).contains("keeps a topic id's newest record");
        assertThat(StoreTopic.problem("compact,delete", "-1", "-1")).isNotNull();
        assertThat(StoreTopic.problem("delete", "604800000", "-1")).contains("retention.ms=604800000");
        assertThat(StoreTopic.problem("delete", "-1", "1073741824")).contains("retention.bytes=1073741824");
    }

    @Test
    void shouldNameTheFixInTheWarning() {
        assertThat(StoreTopic.warning("kscale-task-counts", StoreTopic.problem("compact", "-1", "-1")))
                .contains("kafka-configs.sh --bootstrap-server <brokers> --alter --entity-type topics --entity-name "
                        + "kscale-task-counts --add-config cleanup.policy=delete,retention.ms=-1,retention.bytes=-1");
    }
}
