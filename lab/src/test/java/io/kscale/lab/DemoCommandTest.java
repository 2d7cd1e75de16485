package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.expansion.ExpansionPeer;
import io.kscale.lab.expansion.ExpansionSettings;
import io.kscale.lab.partitioner.PartitionerPeer;
import io.kscale.lab.partitioner.PartitionerSettings;
import io.kscale.lab.scaleout.ScaleOutPeer;
import io.kscale.lab.scaleout.ScaleOutSettings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The demo's command line and sizes; no broker is started here (the demo itself is run by hand). */
class DemoCommandTest {

    @Test
    void shouldOfferHelpWithARunnableExampleAndDescribeEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("demo", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab demo", "--help", "--backend", "--work-dir",
                "--report-dir", "--verbose", "Example: ./kscale-lab demo");
        lab.getSubcommands().get("demo").getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldBeListedFirstInTheLabsHelp() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        assertThat(lab.execute("--help")).isZero();

        assertThat(out.toString()).contains("demo");
        assertThat(out.toString().indexOf("  demo")).isLessThan(out.toString().indexOf("  cluster"));
    }

    @Test
    void shouldDefaultLikeTheOtherCommands() {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).parseArgs();

        assertThat(command.backend).isEqualTo(System.getProperty("kscale.cluster", "process"));
        assertThat(command.workDir).isEqualTo(Path.of("target/kscale-demo"));
        assertThat(command.reportDir).isEqualTo(Path.of("target/kscale-reports"));
        assertThat(command.verbose).isFalse();
    }

    @Test
    void shouldParseItsOptions() {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs("--backend", "process",
                "--work-dir", "/tmp/w", "--report-dir", "/tmp/r", "--verbose");

        assertThat(command.backend).isEqualTo("process");
        assertThat(command.workDir).isEqualTo(Path.of("/tmp/w"));
        assertThat(command.reportDir).isEqualTo(Path.of("/tmp/r"));
        assertThat(command.verbose).isTrue();
    }

    @Test
    void shouldRunEachPluginAgainstKafkasDefaultInShortParts() {
        DemoCommand command = new DemoCommand();
        new CommandLine(command).parseArgs("--work-dir", "/tmp/w");

        PartitionerSettings producer = command.partitionerSettings(List.of());
        assertThat(producer.peers()).containsExactly(PartitionerPeer.KSCALE, PartitionerPeer.BUILT_IN);
        assertThat(producer.rounds()).isEqualTo(1);
        assertThat(producer.duration()).isEqualTo(Duration.ofSeconds(15));
        assertThat(producer.addedLatency()).isEqualTo(PartitionerSettings.DEFAULT_ADDED_LATENCY);

        ExpansionSettings consumer = DemoCommand.expansionSettings();
        assertThat(consumer.peers()).containsExactly(ExpansionPeer.KSCALE, ExpansionPeer.COOPERATIVE_STICKY);
        assertThat(consumer.partitionSteps()).isEqualTo(ExpansionSettings.defaults().partitionSteps());

        ScaleOutSettings streams = command.scaleOutSettings();
        assertThat(streams.peers()).containsExactly(ScaleOutPeer.KSCALE, ScaleOutPeer.STICKY);
        assertThat(streams.parallel()).isTrue();
        assertThat(streams.preloadRecords()).isLessThan(ScaleOutSettings.defaults().preloadRecords());
        assertThat(streams.workDir()).isEqualTo(Path.of("/tmp/w/scale-out"));
    }

    @Test
    void shouldPrintEachStepWithTheElapsedTime() {
        StringWriter out = new StringWriter();
        AtomicLong now = new AtomicLong();
        try (DemoCommand.Progress progress = new DemoCommand.Progress(new PrintWriter(out), 0, now::get, false)) {
            progress.step("Starting");
            now.set(TimeUnit.SECONDS.toNanos(83));
            progress.step("1/3 producer");
        }

        assertThat(out.toString()).isEqualTo("[0:00] Starting\n[1:23] 1/3 producer\n".replace("\n",
                System.lineSeparator()));
        assertThat(DemoCommand.Progress.clock(TimeUnit.MINUTES.toNanos(12) + TimeUnit.SECONDS.toNanos(5)))
                .isEqualTo("12:05");
    }
}
