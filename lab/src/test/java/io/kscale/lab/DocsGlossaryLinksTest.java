package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Each user page links a word of {@code docs/glossary.md} where it first uses it in prose, so that a
 * reader who meets "T" or "stint" can look it up. A page passes for a word when the word's first
 * prose mention comes at or after a link to its glossary entry ({@code glossary.md#<anchor>}, or
 * {@code #<anchor>} on the glossary page itself, which is exempt). Prose is the text outside code
 * blocks, inline code, headings, HTML tags, link targets and the tables between {@code <!-- name:start}
 * and {@code <!-- name:end} markers (their text comes from the code); a link's text is prose. Every anchor of
 * the glossary must have a pattern here, so a new entry cannot go unchecked.
 */
class DocsGlossaryLinksTest {

    private static final Path ROOT = Path.of("..");
    private static final Pattern SEGMENT = Pattern.compile("`[^`]*`|\\[([^\\]]*)\\]\\(([^)]*)\\)|<[^>]+>");
    /** Tables generated from or checked against the code (settings, metrics): their text is the code's. */
    private static final Pattern GENERATED_START = Pattern.compile("^<!-- [\\w-]+:start\\b");
    private static final Pattern GENERATED_END = Pattern.compile("^<!-- [\\w-]+:end\\b");
    private static final Pattern ANCHOR = Pattern.compile("<a id=\"([^\"]+)\"></a>");

    /** How each glossary entry shows in prose. "T" only alone: not in "T=", "p % T" is inline code. */
    private static final Map<String, Pattern> WORDS = new LinkedHashMap<>();

    static {
        WORDS.put("t", Pattern.compile("(?<![\\w`.\\-/=])T(?![\\w\\-/=])"));
        WORDS.put("task", Pattern.compile("\\btasks?\\b(?![\\-.]\\w)"));
        WORDS.put("unit", Pattern.compile("\\bunits?\\b(?![\\-.]\\w)(?! tests?\\b)"));
        WORDS.put("stint", Pattern.compile("\\bstints?\\b"));
        WORDS.put("held-topic", Pattern.compile("\\bheld topics?\\b"));
        WORDS.put("grace", Pattern.compile("\\bgrace\\b"));
        WORDS.put("warmup", Pattern.compile("\\bwarmups?\\b(?![\\-.]\\w)"));
        WORDS.put("follow-up-rebalance", Pattern.compile("\\bfollow-up rebalances?\\b"));
        WORDS.put("layout", Pattern.compile("\\blayouts?\\b(?![\\-.]\\w)"));
    }

    @Test
    void everyGlossaryEntryHasAPatternHere() throws IOException {
        Set<String> anchors = new HashSet<>();
        Matcher anchor = ANCHOR.matcher(Files.readString(ROOT.resolve("docs/glossary.md"), StandardCharsets.UTF_8));
        while (anchor.find()) {
            anchors.add(anchor.group(1));
        }
        assertThat(WORDS.keySet()).containsExactlyInAnyOrderElementsOf(anchors);
    }

    @Test
    void everyPageLinksEachGlossaryWordOnFirstUse() throws IOException {
        List<String> unlinked = new ArrayList<>();
        for (Path page : pages()) {
            unlinked.addAll(unlinked(ROOT.relativize(page).toString(), Files.readString(page, StandardCharsets.UTF_8)));
        }
        assertThat(unlinked).as("glossary words first used without a link to docs/glossary.md").isEmpty();
    }

    @Test
    void findsAnUnlinkedFirstUseButAcceptsALinkAtOrBeforeIt() {
        String page = String.join("\n",
                "# A stint in a heading does not count",
                "Each [stint](glossary.md#stint) and stint again, `grace` in code, a unit test is no unit.",
                "```",
                "held topic in a code block",
                "```",
                "Its [T](glossary.md#t) then T; a held topic here.");

        assertThat(unlinked("page.md", page)).containsExactly("page.md:2: unit", "page.md:6: held-topic");
    }

    static List<String> unlinked(String name, String markdown) {
        List<String> unlinked = new ArrayList<>();
        Set<String> done = new HashSet<>();
        String[] lines = markdown.split("\n", -1);
        boolean fenced = false;
        boolean generated = false;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (GENERATED_START.matcher(line).find()) {
                generated = true;
            } else if (GENERATED_END.matcher(line).find()) {
                generated = false;
            }
            if (fenced || generated || line.startsWith("#") || line.matches("^\\[[^\\]]+\\]:\\s.*")) {
                continue;
            }
            Matcher segment = SEGMENT.matcher(line);
            int from = 0;
            while (true) {
                boolean found = segment.find();
                check(line.substring(from, found ? segment.start() : line.length()), name + ":" + (i + 1), done, unlinked);
                if (!found) {
                    break;
                }
                if (segment.group(2) != null) {
                    // A link to the glossary covers its own text.
                    markLinked(segment.group(2), done);
                    check(segment.group(1), name + ":" + (i + 1), done, unlinked);
                }
                from = segment.end();
            }
        }
        return unlinked;
    }

    private static void check(String prose, String where, Set<String> done, List<String> unlinked) {
        for (Map.Entry<String, Pattern> word : WORDS.entrySet()) {
            if (!done.contains(word.getKey()) && word.getValue().matcher(prose).find()) {
                done.add(word.getKey());
                unlinked.add(where + ": " + word.getKey());
            }
        }
    }

    private static void markLinked(String target, Set<String> done) {
        int hash = target.indexOf('#');
        if (hash >= 0 && target.substring(0, hash).endsWith("glossary.md")) {
            done.add(target.substring(hash + 1));
        }
    }

    /** Every user page but the changelog and the glossary itself. */
    private static List<Path> pages() throws IOException {
        return UserPages.all().stream().filter(p -> !p.endsWith("CHANGELOG.md") && !p.endsWith("glossary.md"))
                .collect(Collectors.toList());
    }
}
