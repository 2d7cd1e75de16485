package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kscale.lab.batching.BatchingSettings;
import io.kscale.lab.partitioner.PartitionerPeer;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class BatchingCommandTest {

    @Test
    void shouldOfferHelpDescribingEveryOptionAndTheTotalRunTime() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("batching", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab batching")
                .contains("--rates", "--lingers", "--pacing", "--partitioners", "--rounds", "--duration", "--backend",
                        "--report-dir")
                .contains("84 runs of 20 s", "about 31 minutes");
        lab.getSubcommands().get("batching").getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldDefaultToTheScenariosMatrixAndAgreeWithItsHelp() {
        BatchingCommand command = new BatchingCommand();
        new CommandLine(command).parseArgs();

        BatchingSettings settings = command.settings();
        BatchingSettings defaults = BatchingSettings.builder().build();
        assertThat(settings.cells()).isEqualTo(defaults.cells());
        assertThat(settings.peers()).isEqualTo(defaults.peers());
        assertThat(settings.rounds()).isEqualTo(defaults.rounds());
        assertThat(settings.duration()).isEqualTo(defaults.duration());
        assertThat(settings.cells().size() * settings.peers().size() * settings.rounds()).isEqualTo(84);
        assertThat(settings.estimatedRunTime().toMinutes()).isBetween(29L, 31L);
    }

    @Test
    void shouldParseAReducedRun() {
        BatchingCommand command = new BatchingCommand();
        new CommandLine(command).parseArgs("--rates", "5000", "--lingers", "0,5", "--pacing", "bursty", "--rounds",
                "1", "--duration", "15s", "--partitioners", "built-in,kscale");

        BatchingSettings settings = command.settings();
        assertThat(settings.cells()).extracting(Object::toString)
                .containsExactly("5000/s bursty, linger.ms=0", "5000/s bursty, linger.ms=5");
        assertThat(settings.peers()).containsExactly(PartitionerPeer.BUILT_IN, PartitionerPeer.KSCALE);
        assertThat(settings.rounds()).isEqualTo(1);
        assertThat(settings.duration()).isEqualTo(Duration.ofSeconds(15));
    }

    @Test
    void shouldNameWhatIsAllowedForABadRateOrPacing() {
        BatchingCommand command = new BatchingCommand();
        new CommandLine(command).parseArgs("--rates", "5000,fast");
        assertThatThrownBy(command::settings).hasMessageContaining("'fast'").hasMessageContaining("max");

        BatchingCommand other = new BatchingCommand();
        new CommandLine(other).parseArgs("--pacing", "jittery");
        assertThatThrownBy(other::settings).hasMessageContaining("'jittery'").hasMessageContaining("bursty or even");
    }
}
