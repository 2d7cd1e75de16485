package io.kscale.lab.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The Debian mirror this machine's apt already uses, for {@code debootstrap}: the image is built
 * from the same package source as the machine's own packages, so an air-gapped site's internal
 * mirror works with no setting. Reads {@code /etc/apt/sources.list.d/*.sources} (deb822 stanzas)
 * and {@code /etc/apt/sources.list} (one-line entries), and takes the first {@code deb} URI that
 * serves the suite.
 */
final class AptMirror {

    private AptMirror() {
    }

    /** The mirror of {@code suite} in the apt configuration under {@code etcApt}. */
    static Optional<String> find(Path etcApt, String suite) {
        List<String> texts = new ArrayList<>();
        Path dir = etcApt.resolve("sources.list.d");
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                files.filter(f -> f.getFileName().toString().endsWith(".sources")).sorted().forEach(f -> texts.add(read(f)));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Optional<String> fromStanzas = texts.stream().flatMap(t -> fromDeb822(t, suite).stream()).findFirst();
        if (fromStanzas.isPresent()) {
            return fromStanzas;
        }
        Path list = etcApt.resolve("sources.list");
        return Files.isRegularFile(list) ? fromOneLine(read(list), suite) : Optional.empty();
    }

    /** From deb822 stanzas: {@code Types: deb}, {@code URIs: ...}, {@code Suites: ...}. */
    static Optional<String> fromDeb822(String text, String suite) {
        for (String stanza : text.split("\\n\\s*\\n")) {
            String types = field(stanza, "Types");
            String uris = field(stanza, "URIs");
            String suites = field(stanza, "Suites");
            if (words(types).contains("deb") && words(suites).contains(suite) && !uris.isBlank()) {
                return Optional.of(words(uris).get(0));
            }
        }
        return Optional.empty();
    }

    /** From one-line entries: {@code deb [options] URI suite components}. */
    static Optional<String> fromOneLine(String text, String suite) {
        for (String line : text.split("\\n")) {
            String entry = line.replaceAll("\\[[^]]*]", " ").trim();
            List<String> words = words(entry);
            if (words.size() >= 3 && words.get(0).equals("deb") && words.get(2).equals(suite)) {
                return Optional.of(words.get(1));
            }
        }
        return Optional.empty();
    }

    private static String field(String stanza, String name) {
        for (String line : stanza.split("\\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).trim();
            }
        }
        return "";
    }

    private static List<String> words(String text) {
        String trimmed = text.trim();
        return trimmed.isEmpty() ? List.of() : Arrays.asList(trimmed.split("\\s+"));
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
    }
}
