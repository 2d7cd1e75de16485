package io.kscale.lab.image;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs the external commands of an image build ({@code docker}, {@code debootstrap},
 * {@code tar}) with a time limit, their output to a log file, and a failure that quotes the log's
 * last lines.
 */
final class Commands {

    private static final int TAIL_LINES = 20;

    private final Path logFile;

    Commands(Path logFile) {
        this.logFile = logFile;
    }

    /** Runs a command to completion and returns its standard output, trimmed. */
    String run(Duration limit, String... command) {
        return run(limit, null, command);
    }

    /** Runs a command with {@code input} as its standard input (a file), or none when null. */
    String run(Duration limit, Path input, String... command) {
        Path stdout = logFile.resolveSibling(logFile.getFileName() + ".out");
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        if (input != null) {
            builder.redirectInput(input.toFile());
        }
        try {
            append("$ " + String.join(" ", command));
            Process process = builder.start();
            boolean finished = process.waitFor(limit.toSeconds(), TimeUnit.SECONDS);
            String output = Files.readString(stdout, StandardCharsets.UTF_8);
            Files.delete(stdout);
            append(output);
            if (!finished) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not finish within " + limit + tail());
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " failed with exit status "
                        + process.exitValue() + tail());
            }
            return output.trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run " + command[0] + " (is it installed?)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + command[0], e);
        }
    }

    /** Whether a command exits 0 (its output goes to the log). */
    boolean succeeds(Duration limit, String... command) {
        try {
            run(limit, command);
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private void append(String text) throws IOException {
        Files.writeString(logFile, text.endsWith("\n") ? text : text + "\n", StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(logFile, StandardCharsets.UTF_8);
            return "; the end of " + logFile + ":\n"
                    + String.join("\n", lines.subList(Math.max(0, lines.size() - TAIL_LINES), lines.size()));
        } catch (IOException e) {
            return "; see " + logFile;
        }
    }
}
