package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Each user page links a KIP where it first names it in prose, to the KIP's page on Kafka's wiki
 * ({@code https://cwiki.apache.org/confluence/...}), so that a reader who meets "KIP-848" can read
 * it. Prose is the text outside code blocks, inline code, headings and link targets; a KIP named
 * inside another link's text does not count as a mention. A link is inline,
 * {@code [KIP-848](https://cwiki...)}, or by reference, {@code [KIP-848]} with a definition
 * {@code [KIP-848]: https://cwiki...} in the page.
 */
class DocsKipLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final String WIKI = "https://cwiki.apache.org/confluence/";
    private static final Pattern SEGMENT = Pattern.compile("`[^`]*`|\\[([^\\]]*)\\]\\(([^)]*)\\)|\\[(KIP-\\d+)\\](?!\\()|<[^>]+>");
    private static final Pattern KIP = Pattern.compile("(?<![\\w/-])KIP-(\\d+)(?!\\d)");

    @Test
    void everyPageLinksEachKipOnFirstMention() throws IOException {
        List<String> unlinked = new ArrayList<>();
        for (Path page : UserPages.all()) {
            unlinked.addAll(unlinked(ROOT.relativize(page).toString(), Files.readString(page, StandardCharsets.UTF_8)));
        }
        assertThat(unlinked).as("KIPs first named without a link to the wiki").isEmpty();
    }

    @Test
    void findsAnUnlinkedFirstMentionButAcceptsInlineAndReferenceLinks() {
        String page = String.join("\n",
                "# KIP-1 in a heading does not count",
                "See [KIP-848](" + WIKI + "display/KAFKA/KIP-848%3A+X) and KIP-848 again, `KIP-2` in code,",
                "[KIP-441] by reference, then KIP-924 bare and [KIP-924](" + WIKI + "x) too late.",
                "```",
                "KIP-3 in a code block",
                "```",
                "[KIP-441]: " + WIKI + "display/KAFKA/KIP-441%3A+Y");

        assertThat(unlinked("page.md", page)).containsExactly("page.md:3: KIP-924");
    }

    static List<String> unlinked(String name, String markdown) {
        List<String> unlinked = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (fenced || line.startsWith("#") || line.matches("^\\[[^\\]]+\\]:\\s.*")) {
                continue;
            }
            Matcher segment = SEGMENT.matcher(line);
            int from = 0;
            while (true) {
                boolean found = segment.find();
                String prose = line.substring(from, found ? segment.start() : line.length());
                Matcher kip = KIP.matcher(prose);
                while (kip.find()) {
                    if (seen.add(kip.group(1))) {
                        unlinked.add(name + ":" + (i + 1) + ": KIP-" + kip.group(1));
                    }
                }
                if (!found) {
                    break;
                }
                String text = segment.group(1) != null ? segment.group(1) : segment.group(3);
                Matcher linked = text == null ? null : Pattern.compile("^KIP-(\\d+)$").matcher(text);
                if (linked != null && linked.matches()) {
                    boolean inline = segment.group(2) != null;
                    boolean ok = inline ? segment.group(2).startsWith(WIKI) : defined(markdown, text);
                    if (seen.add(linked.group(1)) && !ok) {
                        unlinked.add(name + ":" + (i + 1) + ": KIP-" + linked.group(1));
                    }
                }
                from = segment.end();
            }
        }
        return unlinked;
    }

    private static boolean defined(String markdown, String reference) {
        return Pattern.compile("(?m)^\\[" + Pattern.quote(reference) + "\\]:\\s*" + Pattern.quote(WIKI)).matcher(markdown).find();
    }
}
