package io.kscale.admin.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class KscaleAdminTest {

    @Test
    void shouldDocumentEveryOptionAndTheExitCodesInHelp() {
        StringWriter out = new StringWriter();
        CommandLine line = KscaleAdmin.commandLine();
        line.setOut(new PrintWriter(out));

        assertThat(line.execute("expand", "--help")).isZero();

        assertThat(out.toString()).contains("--bootstrap-server", "--command-config", "--output", "--partitions",
                "--dry-run", "--force", "--timeout", "--layout-topic", "--task-count-topic", "Exit codes:",
                "3   grown, but a group did not settle within --timeout");
    }

    @Test
    void shouldExitWithTwoAndOneLineWhenTheClusterIsNotNamed() {
        StringWriter err = new StringWriter();
        CommandLine line = KscaleAdmin.commandLine();
        line.setErr(new PrintWriter(err));

        int exit = line.execute("describe", "--topic", "orders");

        assertThat(exit).isEqualTo(2);
        assertThat(err.toString()).startsWith("Missing --bootstrap-server (or bootstrap.servers in --command-config)");
    }

    @Test
    void shouldReadDurationsAsOperatorsWriteThem() {
        ExpandCommand.DurationConverter converter = new ExpandCommand.DurationConverter();

        assertThat(converter.convert("90s")).isEqualTo(Duration.ofSeconds(90));
        assertThat(converter.convert("10m")).isEqualTo(Duration.ofMinutes(10));
        assertThat(converter.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(converter.convert("PT2H")).isEqualTo(Duration.ofHours(2));
    }

    @Test
    void shouldWriteJsonThatEscapesWhatItMust() {
        assertThat(Json.write(Map.of("a", List.of(1, true, "x\"y\n")))).isEqualTo("{\"a\":[1,true,\"x\\\"y\\n\"]}");
    }
}
