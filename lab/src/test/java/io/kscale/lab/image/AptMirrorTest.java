package io.kscale.lab.image;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AptMirrorTest {

    @Test
    void shouldTakeTheDebStanzaThatServesTheSuite() {
        String sources = "Types: deb\nURIs: http://mirror.example.org/debian-security\nSuites: bookworm-security\n"
                + "Components: main\n\n"
                + "Types: deb-src\nURIs: http://src.example.org/debian\nSuites: bookworm\n\n"
                + "Types: deb\nURIs: http://mirror.example.org/debian\nSuites: bookworm bookworm-updates\n"
                + "Components: main\n";

        assertThat(AptMirror.fromDeb822(sources, "bookworm")).contains("http://mirror.example.org/debian");
        assertThat(AptMirror.fromDeb822(sources, "trixie")).isEmpty();
    }

    @Test
    void shouldReadOneLineEntriesWithOptions() {
        String list = "# comment\ndeb-src http://src.example.org/debian bookworm main\n"
                + "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example.org/debian bookworm main\n";

        assertThat(AptMirror.fromOneLine(list, "bookworm")).contains("http://mirror.example.org/debian");
    }

    @Test
    void shouldPreferSourcesFilesOverTheOneLineList(@TempDir Path etcApt) throws Exception {
        Files.createDirectories(etcApt.resolve("sources.list.d"));
        Files.writeString(etcApt.resolve("sources.list.d/debian.sources"),
                "Types: deb\nURIs: http://a.example.org/debian\nSuites: bookworm\n");
        Files.writeString(etcApt.resolve("sources.list"), "deb http://b.example.org/debian bookworm main\n");

        assertThat(AptMirror.find(etcApt, "bookworm")).contains("http://a.example.org/debian");
        Files.delete(etcApt.resolve("sources.list.d/debian.sources"));
        assertThat(AptMirror.find(etcApt, "bookworm")).contains("http://b.example.org/debian");
    }
}
