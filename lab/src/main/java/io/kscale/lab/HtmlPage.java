package io.kscale.lab;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The one HTML page a lab command writes next to its text table: a heading, the setup, and what
 * the report puts below (charts, the table). Shared by every report so they look alike.
 */
public final class HtmlPage {

    private HtmlPage() {
    }

    /**
     * Writes {@code <kind>-<time>.html} into {@code dir}.
     *
     * @param kind the command, e.g. {@code expansion}; also in the page title
     * @param heading the page's heading, plain text
     * @param setup what was run, plain text
     * @param body HTML to put after the setup
     * @return the file written
     * @throws UncheckedIOException if it cannot be written
     */
    public static Path write(Path dir, String kind, String heading, String setup, String body) {
        Path file = dir.resolve(kind + "-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"))
                + ".html");
        String html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>kscale " + kind + " lab</title>\n"
                + "<style>body{font-family:sans-serif;margin:2em}pre{background:#f4f4f4;padding:1em}</style>"
                + "</head><body>\n<h1>" + escape(heading) + "</h1>\n<p>" + escape(setup) + "</p>\n" + body
                + "</body></html>\n";
        try {
            Files.createDirectories(dir);
            Files.writeString(file, html, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
        return file;
    }

    /** @return the text with {@code &}, {@code <} and {@code >} escaped */
    public static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
