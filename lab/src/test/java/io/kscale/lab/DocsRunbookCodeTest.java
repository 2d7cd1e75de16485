package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The Java code the docs show from an example is the example's code, which the example's own test
 * runs: a {@code ```java} block whose first line is {@code package io.kscale.examples...;} quotes a
 * whole source file of examples/, and must equal it exactly. The file is the block's package and
 * its first top-level type ({@code class}, {@code interface}, {@code record} or {@code enum} at the
 * start of a line): {@code examples/<example>/src/{main,test}/java/<package>/<Type>.java}. The
 * block's lines lose the indentation of its opening fence (a block inside a list item) and the
 * file's trailing newlines do not count; nothing else is forgiven, so a change on either side
 * fails until the other follows. Whole files rather than fragments: the reader gets the imports
 * too (Spring Boot 4 moved its Kafka customizers to another package), and the rule needs no Java
 * parser.
 *
 * <p>The Spring runbook ({@code docs/runbooks.md}) must quote the Spring example's two files, so
 * that dropping a quote does not pass unnoticed.
 */
class DocsRunbookCodeTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern FENCE = Pattern.compile("^( *)```(\\S*)\\s*$");
    private static final Pattern PACKAGE = Pattern.compile("^package (io\\.kscale\\.examples(?:\\.\\w+)*);$");
    private static final Pattern TYPE = Pattern.compile(
            "(?m)^(?:(?:public|final|abstract|sealed|non-sealed) )*(?:class|interface|record|enum) (\\w+)");

    /** One quoted file: where the block starts (page and line), and its code without the fence's indentation. */
    record Quote(String where, String packageName, String type, String code) {
    }

    @Test
    void everyQuotedExampleFileEqualsTheExample() throws IOException {
        List<String> differing = new ArrayList<>();
        for (Path page : pages()) {
            for (Quote quote : quotes(ROOT.relativize(page).toString(), Files.readString(page, StandardCharsets.UTF_8))) {
                List<Path> files = exampleFiles(quote);
                if (files.size() != 1) {
                    differing.add(quote.where() + ": " + files.size() + " example files for " + quote.packageName() + "."
                            + quote.type() + " (one expected)");
                } else if (!quote.code().equals(stripTrailingNewlines(Files.readString(files.get(0), StandardCharsets.UTF_8)))) {
                    differing.add(quote.where() + ": differs from " + ROOT.relativize(files.get(0))
                            + " (first different line: " + firstDifference(quote.code(),
                            stripTrailingNewlines(Files.readString(files.get(0), StandardCharsets.UTF_8))) + ")");
                }
            }
        }
        assertThat(differing).as("quoted example files that differ from the example").isEmpty();
    }

    @Test
    void springRunbookQuotesTheSpringExamplesBarrierFiles() throws IOException {
        String runbooks = Files.readString(ROOT.resolve("docs/runbooks.md"), StandardCharsets.UTF_8);
        int start = runbooks.indexOf("## Use `ExpansionBarrier` under Spring's `@KafkaListener`");
        assertThat(start).as("the Spring runbook's heading").isNotNegative();
        int end = runbooks.indexOf("\n## ", start + 1);
        String section = runbooks.substring(start, end < 0 ? runbooks.length() : end);

        assertThat(quotes("runbooks.md", section)).extracting(Quote::type)
                .containsExactly("BarrierConsumer", "ExpansionBarrierConfiguration");
    }

    @Test
    void readsQuotesOfExampleFilesOnly() {
        String page = String.join("\n",
                "1. A step:",
                "",
                "   ```java",
                "   package io.kscale.examples.demo;",
                "",
                "   /** Demo. */",
                "   final class Demo {",
                "       int x;",
                "   }",
                "   ```",
                "",
                "```java",
                "consumer.poll(Duration.ofMillis(100)); // a fragment, not a file",
                "```",
                "```java",
                "package io.kscale.assignor;",
                "class NotAnExample {}",
                "```");

        assertThat(quotes("page.md", page)).containsExactly(new Quote("page.md:3", "io.kscale.examples.demo", "Demo",
                "package io.kscale.examples.demo;\n\n/** Demo. */\nfinal class Demo {\n    int x;\n}"));
    }

    static List<Quote> quotes(String name, String markdown) {
        List<Quote> quotes = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher open = FENCE.matcher(lines[i]);
            if (!open.matches()) {
                continue;
            }
            String indent = open.group(1);
            List<String> code = new ArrayList<>();
            int close = i + 1;
            while (close < lines.length && !lines[close].equals(indent + "```")) {
                String line = lines[close];
                code.add(line.startsWith(indent) ? line.substring(indent.length()) : line);
                close++;
            }
            Matcher pkg = code.isEmpty() ? null : PACKAGE.matcher(code.get(0));
            Matcher type = TYPE.matcher(String.join("\n", code));
            if (open.group(2).equals("java") && pkg != null && pkg.matches() && type.find()) {
                quotes.add(new Quote(name + ":" + (i + 1), pkg.group(1), type.group(1), String.join("\n", code)));
            }
            i = close;
        }
        return quotes;
    }

    private static List<Path> exampleFiles(Quote quote) throws IOException {
        String file = quote.packageName().replace('.', '/') + "/" + quote.type() + ".java";
        List<Path> found = new ArrayList<>();
        try (Stream<Path> examples = Files.list(ROOT.resolve("examples"))) {
            for (Path example : examples.filter(Files::isDirectory).sorted().toList()) {
                for (String sources : List.of("src/main/java/", "src/test/java/")) {
                    Path candidate = example.resolve(sources + file);
                    if (Files.isRegularFile(candidate)) {
                        found.add(candidate);
                    }
                }
            }
        }
        return found;
    }

    private static String firstDifference(String quoted, String file) {
        String[] a = quoted.split("\n", -1);
        String[] b = file.split("\n", -1);
        for (int i = 0; i < Math.min(a.length, b.length); i++) {
            if (!a[i].equals(b[i])) {
                return "line " + (i + 1) + " of the file, quoted \"" + a[i].strip() + "\", in the file \"" + b[i].strip() + "\"";
            }
        }
        return a.length < b.length ? "the quote ends at line " + a.length : "the quote goes past the file's end";
    }

    private static String stripTrailingNewlines(String text) {
        return text.replaceAll("\\n+$", "");
    }

    /** Every user page but the changelog. */
    private static List<Path> pages() throws IOException {
        return UserPages.all().stream().filter(p -> !p.endsWith("CHANGELOG.md")).collect(Collectors.toList());
    }
}
