package io.kscale.lab.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrphanReaperTest {

    @Test
    void shouldReadTheOwnerPidFromABrokerCommandLine() {
        String commandLine = "/usr/bin/java -Xmx768m -Dkscale.owner.pid=4242 -cp a.jar io.kscale.broker.BrokerMain kafka.Kafka x";

        assertThat(OrphanReaper.ownerIn(commandLine)).contains(4242L);
    }

    @Test
    void shouldIgnoreProcessesThatAreNotKscaleBrokers() {
        assertThat(OrphanReaper.ownerIn("/usr/bin/java -cp kafka.jar kafka.Kafka server.properties")).isEmpty();
    }

    @Test
    void shouldMarkBrokersWithThisProcessAsOwner() {
        assertThat(OrphanReaper.ownerIn(OrphanReaper.ownerOption())).contains(ProcessHandle.current().pid());
    }
}
