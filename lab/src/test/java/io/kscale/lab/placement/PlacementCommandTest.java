package io.kscale.lab.placement;

import static org.assertj.core.api.Assertions.assertThat;

import io.kscale.lab.KscaleLab;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The {@code placement} command as the lab's command line sees it (the command class is package-private). */
class PlacementCommandTest {

    @Test
    void shouldOfferHelpDescribingEveryOption() {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("placement", "--help");

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Usage: kscale-lab placement").contains("--seed", "--seeds", "--scenarios",
                "--assignors", "--acceptable-recovery-lag", "--max-warmup-replicas", "--probing-interval", "--report-dir");
        lab.getSubcommands().get("placement").getCommandSpec().options().forEach(option ->
                assertThat(option.description()).as(option.longestName()).isNotEmpty());
    }

    @Test
    void shouldPrintTheTableAndWriteTheCsv(@TempDir Path dir) throws IOException {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("placement", "--scenarios", "scale-out-1-3", "--report-dir", dir.toString());

        assertThat(status).isZero();
        assertThat(out.toString()).contains("scale-out-1-3", "kscale", "kscale-rate-given", "high-availability", "CSV: ");
        try (Stream<Path> files = Files.list(dir)) {
            Path csv = files.findFirst().orElseThrow();
            assertThat(Files.readAllLines(csv)).hasSize(4).first().asString().startsWith("scenario,seed,phase,kind,assignor");
        }
    }

    @Test
    void shouldSumThePhasesOfSeveralSeedsByKind(@TempDir Path dir) {
        StringWriter out = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setOut(new PrintWriter(out));

        int status = lab.execute("placement", "--scenarios", "scale-out-1-3", "--seeds", "2", "--report-dir",
                dir.toString());

        assertThat(status).isZero();
        assertThat(out.toString()).contains("Seed 42 to 43").containsPattern("join +2 phases +kscale ")
                .doesNotContain("1 -> 3 instances");
    }

    @Test
    void shouldRejectAnUnknownScenarioWithTheKnownNames() {
        StringWriter err = new StringWriter();
        CommandLine lab = KscaleLab.commandLine();
        lab.setErr(new PrintWriter(err));

        int status = lab.execute("placement", "--scenarios", "everything");

        assertThat(status).isNotZero();
        assertThat(err.toString()).contains("'everything'", "scale-out-1-3");
    }
}
