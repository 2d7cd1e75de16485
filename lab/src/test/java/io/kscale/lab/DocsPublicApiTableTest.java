package io.kscale.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The "Public API" table of docs/architecture.md lists exactly {@link PublicApiTest}'s types of
 * the plug-ins' packages: a row per package, its first cell the package, its second the simple
 * names of its public types, each in backquotes ({@code Outer.Nested} for a nested type). Rows of
 * other packages are not this test's.
 */
class DocsPublicApiTableTest {

    private static final Pattern ROW = Pattern.compile("^\\| `([\\w.]+)` \\| (.*) \\|$");
    /** A type's simple name, or a nested type's as {@code Outer.Nested} (its binary name has {@code $}). */
    private static final Pattern NAME = Pattern.compile("`(\\w+(?:\\.\\w+)?)`");

    @Test
    void architectureListsThePublicApi() throws IOException {
        String text = Files.readString(Path.of("..", "docs/architecture.md"), StandardCharsets.UTF_8);
        String section = text.substring(text.indexOf("### Public API"));
        Set<String> packages = pinned("USER_FACING_PACKAGES");
        Set<String> documented = new TreeSet<>();
        for (String line : section.split("\n")) {
            Matcher row = ROW.matcher(line.strip());
            if (row.matches() && packages.contains(row.group(1))) {
                Matcher name = NAME.matcher(row.group(2));
                while (name.find()) {
                    documented.add(row.group(1) + "." + name.group(1).replace('.', '$'));
                }
            }
        }
        assertThat(documented).as("docs/architecture.md's public API table").isEqualTo(new TreeSet<>(pinned("API")));
    }

    /** One of {@link PublicApiTest}'s pinned sets, read as it is (kept private there). */
    @SuppressWarnings("unchecked")
    private static Set<String> pinned(String field) {
        try {
            Field f = PublicApiTest.class.getDeclaredField(field);
            f.setAccessible(true);
            return (Set<String>) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("PublicApiTest." + field, e);
        }
    }
}
