package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/measurements.md is the one source of measured numbers: README.md and the guide pages
 * (partitioner, consumer, server and Streams assignor) may quote a measurement, but every number
 * they quote must appear in docs/measurements.md, so that no page carries a figure of its own.
 *
 * <p>The rule, kept simple enough to apply by eye:
 * <ul>
 * <li>Checked: every block of a checked page that links to measurements.md, and every block under a
 * heading that starts with "Measured". A block is a paragraph, a list item or a table row.</li>
 * <li>A number is a run of digits with optional thousands commas and decimals, not glued to a word
 * or a hyphen (so not KIP-848, p99, murmur2) and not part of a version (2.15.1), with an optional unit right after it: {@code %},
 * {@code x} (a ratio), {@code ms}, {@code ms/op} (read as ms), {@code s}, {@code MB}, {@code KB}. A
 * range ({@code 12-13%}, {@code 1.4 to 7x}) is two numbers that share the unit.</li>
 * <li>Not numbers: inline code (settings, commands, class names), link targets, and HTML comments.
 * Setting defaults and versions are written in code or sit in blocks that link nowhere.</li>
 * <li>A number with a unit must appear with that unit in measurements.md; a number without one
 * must appear there at all. Thousands commas do not count ({@code 20,000} matches {@code 20000}).</li>
 * </ul>
 */
class DocsMeasuredNumbersTest {

    private static final Path ROOT = Path.of("..");
    private static final List<String> PAGES = List.of("README.md", "docs/partitioner.md", "docs/consumer-assignor.md",
            "docs/server-assignor.md", "docs/streams-assignor.md");

    private static final Pattern NUMBER = Pattern.compile(
            "(?<![\\w.,-])(\\d[\\d,]*(?:\\.\\d+)?)(?!\\d|\\.\\d)(?:\\s?(?:-|to)\\s?(\\d[\\d,]*(?:\\.\\d+)?)(?!\\d|\\.\\d))?"
                    + "(?:\\s?(%|x\\b|ms/op\\b|ms\\b|s\\b|MB\\b|KB\\b))?");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");
    private static final Pattern COMMENT = Pattern.compile("<!--.*?-->");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*)$");

    @Test
    void everyMeasuredNumberOfReadmeAndTheGuidesIsInMeasurements() throws IOException {
        Set<String> measured = measuredNumbers(read("docs/measurements.md"));
        List<String> missing = new ArrayList<>();
        for (String page : PAGES) {
            missing.addAll(unmeasured(page, read(page), measured));
        }
        assertThat(missing).as("numbers quoted about a measurement but absent from docs/measurements.md").isEmpty();
    }

    @Test
    void checksOnlyBlocksThatCiteAMeasurementAndKeepsUnits() {
        Set<String> measured = measuredNumbers("kscale 0.19x; within 0.1% of the mean; 12-13% more; 54 (60, 62) ms; 20,000 keys");
        String page = String.join("\n",
                "# Page",
                "",
                "Quick: 0.19x and 54 ms, 99 keys ([measured](docs/measurements.md#row)).",
                "",
                "- 13% more and 20000 keys, `linger.ms=5`, KIP-848 and librdkafka 2.15.1 ([measured](measurements.md)).",
                "- 77% in a block that cites nothing.",
                "",
                "## Measured",
                "",
                "| 0.1% | 12 ms |");

        assertThat(unmeasured("page.md", page, measured)).containsExactly(
                "page.md:3: 54 ms", "page.md:3: 99", "page.md:10: 12 ms");
    }

    static List<String> unmeasured(String name, String markdown, Set<String> measured) {
        List<String> missing = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        boolean measuredSection = false;
        boolean fenced = false;
        List<Integer> block = new ArrayList<>();
        for (int i = 0; i <= lines.length; i++) {
            String line = i < lines.length ? lines[i] : "";
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced) {
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            boolean startsBlock = line.isBlank() || heading.matches() || line.startsWith("|")
                    || line.matches("^\\s*([-*]|\\d+\\.)\\s.*");
            if (startsBlock && !block.isEmpty()) {
                check(name, lines, block, measuredSection, measured, missing);
                block.clear();
            }
            if (heading.matches()) {
                measuredSection = heading.group(1).startsWith("Measured");
            } else if (!line.isBlank()) {
                block.add(i);
            }
        }
        return missing;
    }

    private static void check(String name, String[] lines, List<Integer> block, boolean measuredSection,
            Set<String> measured, List<String> missing) {
        StringBuilder text = new StringBuilder();
        for (int i : block) {
            text.append(lines[i]).append('\n');
        }
        if (!measuredSection && !text.toString().contains("measurements.md")) {
            return;
        }
        for (int i : block) {
            for (String number : numbers(lines[i])) {
                if (!measured.contains(number)) {
                    missing.add(name + ":" + (i + 1) + ": " + number);
                }
            }
        }
    }

    /** The numbers of a text, each as "digits" or "digits unit", commas dropped; a number with a unit counts bare too. */
    static Set<String> numbers(String text) {
        Set<String> numbers = new LinkedHashSet<>();
        String prose = LINK_TARGET.matcher(INLINE_CODE.matcher(COMMENT.matcher(text).replaceAll("")).replaceAll(" "))
                .replaceAll("]");
        Matcher m = NUMBER.matcher(prose);
        while (m.find()) {
            String unit = m.group(3) == null ? "" : " " + (m.group(3).equals("ms/op") ? "ms" : m.group(3));
            add(numbers, m.group(1), unit);
            if (m.group(2) != null) {
                add(numbers, m.group(2), unit);
            }
        }
        return numbers;
    }

    private static void add(Set<String> numbers, String digits, String unit) {
        String number = digits.replace(",", "");
        if (number.endsWith(".")) {
            number = number.substring(0, number.length() - 1);
        }
        numbers.add(number + unit);
    }

    /** For measurements.md: every number also counts bare, so a page may quote it without its unit. */
    private static Set<String> measuredNumbers(String text) {
        Set<String> numbers = new LinkedHashSet<>();
        for (String number : numbers(text)) {
            numbers.add(number);
            numbers.add(number.split(" ")[0]);
        }
        return numbers;
    }

    private static String read(String page) throws IOException {
        return Files.readString(ROOT.resolve(page), StandardCharsets.UTF_8);
    }
}
