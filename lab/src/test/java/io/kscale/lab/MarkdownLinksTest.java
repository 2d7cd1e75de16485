package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link and anchor of README.md, the other top-level Markdown files, docs/ and
 * examples/ resolves ({@link MarkdownLinks}); the checker itself against GitHub's anchor rule and a
 * fixture with known broken links.
 */
class MarkdownLinksTest {

    private static final Path ROOT = Path.of("..");

    @Test
    void everyRelativeLinkOfTheProjectsMarkdownResolves() {
        List<Path> files = MarkdownLinks.projectFiles(ROOT);
        assertThat(files).as("Markdown files checked").contains(ROOT.resolve("README.md"));
        assertThat(MarkdownLinks.broken(ROOT, files)).as("broken links").isEmpty();
    }

    @Test
    void slugFollowsGitHubsRule() {
        assertThat(MarkdownLinks.slug("Kafka Streams: WarmupTaskAssignor")).isEqualTo("kafka-streams-warmuptaskassignor");
        assertThat(MarkdownLinks.slug("Measured: 4 -> 8 -> 16 partitions under load"))
                .isEqualTo("measured-4---8---16-partitions-under-load");
        assertThat(MarkdownLinks.slug("Performance of `partition()` (JMH)")).isEqualTo("performance-of-partition-jmh");
        assertThat(MarkdownLinks.slug("Order across an expansion: `ExpansionBarrier`"))
                .isEqualTo("order-across-an-expansion-expansionbarrier");
        assertThat(MarkdownLinks.slug("snake_case and kebab-case, 0.1.0")).isEqualTo("snake_case-and-kebab-case-010");
        assertThat(MarkdownLinks.slug("See [the lab](lab.md) now")).isEqualTo("see-the-lab-now");
    }

    @Test
    void repeatedHeadingsGetNumberedAnchorsAndCodeBlocksMakeNone() {
        String markdown = "# Settings\n\n```bash\n# not a heading\n```\n\n## Settings\n### Settings\n";
        assertThat(MarkdownLinks.anchors(markdown)).containsExactly("settings", "settings-1", "settings-2");
    }

    @Test
    void findsBrokenFilesAndAnchorsInAFixture(@TempDir Path root) throws IOException {
        Files.createDirectories(root.resolve("docs"));
        Files.writeString(root.resolve("docs/guide.md"), "# The guide\n\n## How it works\n", StandardCharsets.UTF_8);
        Files.writeString(root.resolve("README.md"), String.join("\n",
                "# Fixture",
                "## Local heading",
                "Good: [guide](docs/guide.md), [how](docs/guide.md#how-it-works), [here](#local-heading),",
                "[folder](docs/), [web](https://example.com/x#y), `[code](nowhere.md)`.",
                "Broken: [gone](missing.md), [anchor](docs/guide.md#how-it-fails), [here](#no-such-heading).",
                "```",
                "[in a code block](also-missing.md)",
                "```",
                "[ref]: docs/absent.md",
                ""), StandardCharsets.UTF_8);

        List<String> broken = MarkdownLinks.broken(root, MarkdownLinks.projectFiles(root));

        assertThat(broken).containsExactly(
                "README.md: missing.md: no such file",
                "README.md: docs/guide.md#how-it-fails: no heading makes #how-it-fails",
                "README.md: #no-such-heading: no heading makes #no-such-heading",
                "README.md: docs/absent.md: no such file");
    }
}
