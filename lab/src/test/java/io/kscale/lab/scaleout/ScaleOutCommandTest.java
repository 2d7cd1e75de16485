package io.kscale.lab.scaleout;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.KscaleLab;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The {@code scale-out} command as the lab's command line sees it (the command class is package-private). */
class ScaleOutCommandTest {

    @Test
    void shouldOfferHelpDescribingEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("scale-out", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab scale-out").contains("--help")
                .contains("--peers", "--partitions", "--instances", "--keys", "--preload", "--value-bytes", "--rate",
                        "--acceptable-recovery-lag", "--max-warmup-replicas", "--probing-interval",
                        "--balance-timeout", "--stable-for", "--one-at-a-time", "--state-dir", "--report-dir",
                        "--restore-rate", "--kill-during-warmup", "--session-timeout",
                        "--bootstrap-server", "--brokers");
        lab.getSubcommands().get("scale-out").getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldDefaultToTheScenariosDefaults() {
        CommandLine.ParseResult parsed = KscaleLab.commandLine().parseArgs("scale-out").subcommand();
        ScaleOutSettings defaults = ScaleOutSettings.defaults();

        CommandLine.Model.CommandSpec spec = parsed.commandSpec();
        assertThat(spec.findOption("--peers").<List<String>>getValue())
                .containsExactly("kscale", "high-availability", "sticky");
        assertThat(spec.findOption("--partitions").<Integer>getValue()).isEqualTo(defaults.partitions());
        assertThat(spec.findOption("--instances").<Integer>getValue()).isEqualTo(defaults.instances());
        assertThat(spec.findOption("--keys").<Integer>getValue()).isEqualTo(defaults.keys());
        assertThat(spec.findOption("--preload").<Long>getValue()).isEqualTo(defaults.preloadRecords());
        assertThat(spec.findOption("--value-bytes").<Integer>getValue()).isEqualTo(defaults.valueBytes());
        assertThat(spec.findOption("--rate").<Integer>getValue()).isEqualTo(defaults.recordsPerSecond());
        assertThat(spec.findOption("--acceptable-recovery-lag").<Long>getValue())
                .isEqualTo(defaults.acceptableRecoveryLag());
        assertThat(spec.findOption("--max-warmup-replicas").<Integer>getValue()).isEqualTo(defaults.maxWarmupReplicas());
        assertThat(spec.findOption("--probing-interval").<Long>getValue())
                .isEqualTo(defaults.probingInterval().toSeconds());
        assertThat(spec.findOption("--balance-timeout").<Long>getValue()).isEqualTo(defaults.balanceTimeout().toSeconds());
        assertThat(spec.findOption("--stable-for").<Long>getValue()).isEqualTo(defaults.stableFor().toSeconds());
        assertThat(spec.findOption("--one-at-a-time").<Boolean>getValue()).isEqualTo(!defaults.parallel());
        assertThat(spec.findOption("--state-dir").<Path>getValue()).isEqualTo(defaults.workDir());
        assertThat(spec.findOption("--restore-rate").<Long>getValue()).isEqualTo(defaults.restoreRecordsPerSecond());
        assertThat(spec.findOption("--kill-during-warmup").<Boolean>getValue()).isEqualTo(defaults.killWarmingInstance());
        assertThat(spec.findOption("--session-timeout").<Long>getValue()).isEqualTo(defaults.sessionTimeout().toSeconds());
    }

    @Test
    void shouldRejectAnUnknownAssignorWithTheKnownNames() {
        StringWriter err = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setErr(new PrintWriter(err));

        int status = lab.execute("scale-out", "--peers", "kscale,ha", "--bootstrap-server", "127.0.0.1:1");

        assertThat(status).isNotZero();
        assertThat(err.toString()).contains("'ha'", "kscale, high-availability, sticky");
    }
}
