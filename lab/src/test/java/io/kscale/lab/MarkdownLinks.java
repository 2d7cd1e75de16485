package io.kscale.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The relative links of Markdown files, and the ones that lead nowhere: a link to a file or folder
 * that does not exist, or to an anchor ({@code file.md#anchor}, {@code #anchor}) that no heading of
 * that file makes. Links with a scheme ({@code https:}, {@code mailto:}) are not followed.
 *
 * <p>Anchors follow GitHub's rule ({@link #slug}): the heading's text, lower-cased, with every
 * character dropped but letters, digits, spaces, {@code -} and {@code _}, and each space turned into
 * {@code -}; a repeated heading gets {@code -1}, {@code -2} ... Example: {@code ### Measured: 4 -> 8}
 * gives {@code measured-4---8}. Headings and links inside fenced code blocks and inline code are
 * not headings or links.
 */
final class MarkdownLinks {

    private static final Pattern FENCE = Pattern.compile("^\\s*(```|~~~)");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern INLINE_CODE = Pattern.compile("`+[^`]*`+");
    /** [text](target "title") and ![alt](target): the target up to a space or the closing parenthesis. */
    private static final Pattern LINK = Pattern.compile("!?\\[(?:[^\\]\\[]|\\[[^\\]]*\\])*\\]\\(\\s*<?([^)\\s>]*)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
    private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*<?(\\S+?)>?(?:\\s.*)?$");
    private static final Pattern HTML_ANCHOR = Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"");
    private static final Pattern SCHEME = Pattern.compile("^[a-zA-Z][a-zA-Z0-9+.-]*:");

    private MarkdownLinks() {
    }

    /** GitHub's anchor of a heading's text (before de-duplication). */
    static String slug(String heading) {
        String text = heading
                .replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1") // a link shows its text
                .replaceAll("<[^>]+>", "");                      // inline HTML shows nothing
        StringBuilder slug = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (c == ' ') {
                slug.append('-');
            } else if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                slug.appendCodePoint(c);
            }
        });
        return slug.toString();
    }

    /** The anchors a Markdown text defines: its headings' slugs (de-duplicated as GitHub does) and HTML anchors. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String line : outsideCode(markdown)) {
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String slug = slug(heading.group(2));
                int n = seen.merge(slug, 1, Integer::sum) - 1;
                anchors.add(n == 0 ? slug : slug + "-" + n);
            }
            Matcher html = HTML_ANCHOR.matcher(line);
            while (html.find()) {
                anchors.add(html.group(1));
            }
        }
        return anchors;
    }

    /** The link targets of a Markdown text, in order (inline links, images and reference definitions). */
    static List<String> targets(String markdown) {
        List<String> targets = new ArrayList<>();
        for (String line : outsideCode(markdown)) {
            String text = INLINE_CODE.matcher(line).replaceAll("");
            Matcher reference = REFERENCE.matcher(text);
            if (reference.matches()) {
                targets.add(reference.group(1));
                continue;
            }
            Matcher link = LINK.matcher(text);
            while (link.find()) {
                targets.add(link.group(1));
            }
        }
        return targets;
    }

    /** One line per broken relative link of the given files: "file: target: why". */
    static List<String> broken(Path root, List<Path> files) {
        List<String> broken = new ArrayList<>();
        for (Path file : files) {
            String markdown = read(file);
            for (String target : targets(markdown)) {
                if (target.isEmpty() || SCHEME.matcher(target).find()) {
                    continue;
                }
                String why = brokenBecause(file, markdown, target);
                if (why != null) {
                    broken.add(root.relativize(file) + ": " + target + ": " + why);
                }
            }
        }
        return broken;
    }

    /** README.md, the other Markdown files at the top, and every Markdown file under docs/ and examples/. */
    static List<Path> projectFiles(Path root) {
        try (Stream<Path> top = Files.list(root)) {
            List<Path> files = top.filter(p -> p.toString().endsWith(".md")).sorted().collect(Collectors.toList());
            for (String folder : List.of("docs", "examples")) {
                Path dir = root.resolve(folder);
                if (Files.isDirectory(dir)) {
                    try (Stream<Path> walk = Files.walk(dir)) {
                        walk.filter(p -> p.toString().endsWith(".md"))
                                .filter(p -> !p.toString().contains("/target/"))
                                .sorted()
                                .forEach(files::add);
                    }
                }
            }
            return files;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String brokenBecause(Path file, String markdown, String target) {
        int hash = target.indexOf('#');
        String path = URLDecoder.decode(hash < 0 ? target : target.substring(0, hash), StandardCharsets.UTF_8);
        String anchor = hash < 0 ? null : target.substring(hash + 1);
        Path resolved = path.isEmpty() ? file : file.toAbsolutePath().getParent().resolve(path).normalize();
        if (!Files.exists(resolved)) {
            return "no such file";
        }
        if (anchor == null || anchor.isEmpty()) {
            return null;
        }
        if (!resolved.toString().endsWith(".md")) {
            return null; // an anchor into a non-Markdown file (a line of code) is not checked
        }
        String text = resolved.equals(file) ? markdown : read(resolved);
        return anchors(text).contains(URLDecoder.decode(anchor, StandardCharsets.UTF_8)) ? null : "no heading makes #" + anchor;
    }

    private static List<String> outsideCode(String markdown) {
        List<String> lines = new ArrayList<>();
        String fence = null;
        for (String line : markdown.split("\n", -1)) {
            Matcher m = FENCE.matcher(line);
            if (fence == null && m.find()) {
                fence = m.group(1);
            } else if (fence != null && line.trim().startsWith(fence)) {
                fence = null;
            } else if (fence == null) {
                lines.add(line);
            }
        }
        return lines;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
