package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/lab.md's table of commands has a row for every command of {@code kscale-lab} and no other:
 * a row whose first cell starts with {@code `kscale-lab NAME}. The commands are picocli's
 * subcommands of {@link KscaleLab}, {@code help} aside.
 */
class DocsLabCommandsTest {

    private static final Pattern ROW = Pattern.compile("^\\| `kscale-lab ([a-z-]+)");

    @Test
    void labPageHasARowForEveryCommand() throws IOException {
        Set<String> commands = new TreeSet<>(KscaleLab.commandLine().getSubcommands().keySet());
        commands.remove("help");
        Set<String> documented = new TreeSet<>();
        for (String line : Files.readAllLines(Path.of("..", "docs/lab.md"), StandardCharsets.UTF_8)) {
            Matcher row = ROW.matcher(line);
            if (row.find()) {
                documented.add(row.group(1));
            }
        }
        assertThat(documented).as("docs/lab.md's command rows").isEqualTo(commands);
    }
}
