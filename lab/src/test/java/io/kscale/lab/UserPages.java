package io.kscale.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** The Markdown pages a user reads, for the doc tests: README, CHANGELOG, the examples' README and every page of docs/. */
final class UserPages {

    /** The repository root, seen from the lab module where the tests run. */
    static final Path ROOT = Path.of("..");

    private UserPages() {
    }

    static List<Path> all() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("CHANGELOG.md"),
                ROOT.resolve("examples/README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }
}
