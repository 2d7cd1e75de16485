package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class ExpansionCommandTest {

    @Test
    void shouldOfferHelpDescribingEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("expansion", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab expansion").contains("--help")
                .contains("--peers", "--partitions", "--members", "--keys", "--rate", "--records-per-step",
                        "--report-dir", "--bootstrap-server", "--brokers", "--faults");
        CommandLine expansion = lab.getSubcommands().get("expansion");
        expansion.getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldDefaultToTheScenariosDefaults() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs();

        ExpansionSettings settings = command.settings();
        ExpansionSettings defaults = ExpansionSettings.defaults();
        assertThat(settings.peers()).isEqualTo(defaults.peers());
        assertThat(settings.partitionSteps()).isEqualTo(defaults.partitionSteps());
        assertThat(settings.members()).isEqualTo(defaults.members());
        assertThat(settings.keys()).isEqualTo(defaults.keys());
        assertThat(settings.recordsPerSecond()).isEqualTo(defaults.recordsPerSecond());
        assertThat(settings.recordsPerStep()).isEqualTo(defaults.recordsPerStep());
    }

    @Test
    void shouldParseCommaSeparatedListsAndSizes() {
        ExpansionCommand command = new ExpansionCommand();
        CommandLine.ParseResult parsed = new CommandLine(command).parseArgs("--peers", "range, KScale",
                "--partitions", "2,6,12,24", "--members", "5", "--keys", "50", "--rate", "500",
                "--records-per-step", "1000", "--report-dir", "/tmp/r", "--brokers", "1");

        ExpansionSettings settings = command.settings();
        assertThat(settings.peers()).containsExactly(ExpansionPeer.RANGE, ExpansionPeer.KSCALE);
        assertThat(settings.partitionSteps()).containsExactly(2, 6, 12, 24);
        assertThat(settings.members()).isEqualTo(5);
        assertThat(settings.keys()).isEqualTo(50);
        assertThat(settings.recordsPerSecond()).isEqualTo(500);
        assertThat(settings.recordsPerStep()).isEqualTo(1000);
        assertThat((Path) parsed.matchedOptionValue("--report-dir", null)).isEqualTo(Path.of("/tmp/r"));
    }

    @Test
    void shouldNameTheExpectedAssignorsForAnUnknownOne() {
        assertThat(ExpansionPeer.fromCliName(" Cooperative-Sticky ")).isEqualTo(ExpansionPeer.COOPERATIVE_STICKY);
        assertThatThrownBy(() -> ExpansionPeer.fromCliName("sticky"))
                .hasMessageContaining("'sticky'").hasMessageContaining("kscale, kscale-no-barrier, cooperative-sticky, range");
    }

    @Test
    void shouldRejectShrinkingPartitionCounts() {
        ExpansionCommand command = new ExpansionCommand();
        new CommandLine(command).parseArgs("--partitions", "8,4");

        assertThatThrownBy(command::settings).hasMessageContaining("must grow");
    }
}
