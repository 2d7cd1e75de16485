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
import org.junit.jupiter.api.Test;

/**
 * User-facing Markdown describes the software, not how it was built: no work-item numbers
 * ("issue 17", "#12"), no branch names ({@code wip/...}, "branch"), no talk of the project's own
 * goals or of who measured what ("the goal", "session 2", "other helpers' builds"). The
 * pages checked are README.md, CHANGELOG.md, every page of docs/ and examples/README.md.
 * References to other projects' trackers stay allowed: KIP-848, KAFKA-15591, and an item of
 * another repository written with that repository's name ({@code testcontainers-java#11682}).
 */
class DocsProjectHistoryTest {

    private static final Path ROOT = Path.of("..");

    /** Each pattern with what it catches; matched case-insensitively, outside link targets. */
    private static final List<Pattern> HISTORY = List.of(
            Pattern.compile("\\bissues? \\d+", Pattern.CASE_INSENSITIVE),
            // an item number: #12, but not an anchor (links are stripped) nor repo#12
            Pattern.compile("(?<![\\w/#&-])#\\d+\\b"),
            Pattern.compile("\\bwip/"),
            Pattern.compile("`main`|\\bmain at [0-9a-f]{7}"), // the branch, as opposed to a main() method
            Pattern.compile("\\bbranch(es)?\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\b(the|this|that) issue\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bthe goals?\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bsessions? \\d+", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bhelpers'|\\bother helpers\\b", Pattern.CASE_INSENSITIVE),
            Pattern.compile("\\bwork items?\\b", Pattern.CASE_INSENSITIVE));

    /** A Markdown link's target, dropped before matching: anchors and addresses are not prose. */
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");

    @Test
    void userPagesCarryNoProjectHistory() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path page : UserPages.all()) {
            found.addAll(history(ROOT.relativize(page).toString(), Files.readString(page, StandardCharsets.UTF_8)));
        }
        assertThat(found).as("project history in user pages (work items, branches, who built what)").isEmpty();
    }

    @Test
    void findsWorkItemsAndBranchesButNotKipsOrAnchors() {
        String page = String.join("\n",
                "Before issue 17 the store could lose T; see #12.",
                "Measured on branch `wip/assign-perf`; the issue's goal is met.",
                "KIP-848 and KAFKA-15591 stay; [the race](testing.md#12-the-race) and testcontainers-java#11682 too.",
                "session.timeout.ms is a setting; a jar of `main` and main at 76deec6.");

        assertThat(history("page.md", page)).containsExactly(
                "page.md:1: issue 17",
                "page.md:1: #12",
                "page.md:2: wip/",
                "page.md:2: branch",
                "page.md:2: the issue",
                "page.md:4: `main`",
                "page.md:4: main at 76deec6");
    }

    static List<String> history(String name, String markdown) {
        List<String> found = new ArrayList<>();
        String[] lines = markdown.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = LINK_TARGET.matcher(lines[i]).replaceAll("]");
            for (Pattern pattern : HISTORY) {
                Matcher m = pattern.matcher(line);
                while (m.find()) {
                    found.add(name + ":" + (i + 1) + ": " + m.group());
                }
            }
        }
        return found.stream().sorted((a, b) -> Integer.compare(lineOf(a), lineOf(b))).collect(Collectors.toList());
    }

    private static int lineOf(String finding) {
        String rest = finding.substring(finding.indexOf(':') + 1);
        return Integer.parseInt(rest.substring(0, rest.indexOf(':')));
    }
}
