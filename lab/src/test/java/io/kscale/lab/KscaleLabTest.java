package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KscaleLabTest {

    @Test
    void shouldOfferHelpOnEveryCommand() {
        for (String command : new String[] {"cluster", "partitioner", "batching"}) {
            StringWriter out = new StringWriter();
            CommandLine lab = KscaleLab.commandLine();
            lab.setOut(new PrintWriter(out));

            int status = lab.execute(command, "--help");

            assertThat(status).isZero();
            assertThat(out.toString()).contains("Usage: kscale-lab " + command).contains("--help");
        }
    }

    @Test
    void shouldOfferASecuredClusterAndRejectAnUnknownSecurity() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));
        StringWriter err = new StringWriter();
        lab.setErr(new PrintWriter(err));

        assertThat(lab.execute("cluster", "--help")).isZero();
        assertThat(out.toString()).contains("--security", "sasl_ssl", "--client-config");
        assertThat(lab.execute("cluster", "--security", "kerberos")).isEqualTo(2);
        assertThat(err.toString()).contains("plaintext or sasl_ssl");
    }

    @Test
    void shouldRejectAnUnknownOption() {
        CommandLine lab = KscaleLab.commandLine();
        lab.setErr(new PrintWriter(new StringWriter()));

        assertThat(lab.execute("cluster", "--nodes", "3")).isEqualTo(2);
    }

    @Test
    void shouldParseDurationsWithUnits() {
        assertThat(PartitionerCommand.parseDuration("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(PartitionerCommand.parseDuration("30s")).isEqualTo(Duration.ofSeconds(30));
        assertThat(PartitionerCommand.parseDuration("2m")).isEqualTo(Duration.ofMinutes(2));
        assertThat(PartitionerCommand.parseDuration("45")).isEqualTo(Duration.ofSeconds(45));
        assertThatThrownBy(() -> PartitionerCommand.parseDuration("soon")).hasMessageContaining("'soon'");
    }
}
