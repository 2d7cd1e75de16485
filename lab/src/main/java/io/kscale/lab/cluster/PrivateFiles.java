package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Files and folders that hold a secured cluster's secrets (keystores, passwords in settings,
 * SCRAM credentials), made readable by their owner only from the moment they exist: a folder
 * is created with mode 0700 and a file with 0600 in the same system call (the permissions are
 * an attribute of the creation, not a {@code chmod} afterwards, so no other user can open them
 * in between). The process umask can only take permissions away, never add them. On a file
 * system without POSIX permissions they are created with its defaults.
 */
final class PrivateFiles {

    static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
    static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");

    private PrivateFiles() {
    }

    /** @return whether the default file system has POSIX permissions */
    static boolean posix() {
        return FileSystems.getDefault().supportedFileAttributeViews().contains("posix");
    }

    /**
     * Creates a folder that only its owner may enter; its parent must exist.
     *
     * @throws UncheckedIOException if it exists already or cannot be made
     */
    static Path createDirectory(Path dir) {
        try {
            return posix() ? Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(DIRECTORY))
                    : Files.createDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir, e);
        }
    }

    /** Writes lines (UTF-8) to a new file that only its owner may read; replaces an existing one. */
    static void write(Path file, List<String> lines) {
        StringBuilder text = new StringBuilder();
        lines.forEach(line -> text.append(line).append('\n'));
        write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Writes bytes to a new file that only its owner may read. An existing file is deleted
     * first and the file created afresh ({@code CREATE_NEW}): reusing it would keep its
     * permissions, and a file someone else created in between makes this fail rather than
     * write into it.
     */
    static void write(Path file, byte[] content) {
        FileAttribute<?>[] attributes = posix() ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)}
                : new FileAttribute<?>[0];
        try {
            Files.deleteIfExists(file);
            try (SeekableByteChannel out = Files.newByteChannel(file,
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), attributes)) {
                ByteBuffer buffer = ByteBuffer.wrap(content);
                while (buffer.hasRemaining()) {
                    out.write(buffer);
                }
            }
        } catch (FileAlreadyExistsException e) {
            throw new UncheckedIOException("Cannot write " + file + ": it was created again while being replaced", e);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }
}
