package io.kscale.lab.image;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * Builds kscale's offline Kafka image ({@link ImageRecipe}) with the {@code docker} and
 * {@code debootstrap} commands, printing one line per step. Nothing is pulled: the base comes
 * from Debian packages, the rest from the local Maven repository.
 *
 * <p>Steps, each skipped when its image is already present:
 * <ol>
 *   <li>the base: {@code debootstrap --variant=minbase --include=openjdk-17-jre-headless} into a
 *       folder (root only), package caches removed, then {@code tar | docker import};</li>
 *   <li>the Kafka image: a build context with the broker jars (hard links where possible), the
 *       entrypoint and its configuration, then {@code docker build --force-rm}. The Dockerfile
 *       has no {@code RUN} step, so no build container runs, and none is left behind.</li>
 * </ol>
 * Folders it made are removed at the end, whether the build succeeded or not; the command log
 * stays in the work folder.
 */
public final class LocalImageBuilder {

    private static final Duration DOCKER_LIMIT = Duration.ofMinutes(5);
    private static final Duration DEBOOTSTRAP_LIMIT = Duration.ofMinutes(20);
    private static final Path ETC_APT = Path.of("/etc/apt");

    private final ImageRecipe recipe;
    private final Path workDir;
    private final PrintWriter out;
    private final Commands commands;

    public LocalImageBuilder(ImageRecipe recipe, Path workDir, PrintWriter out) {
        this.recipe = recipe;
        this.workDir = createDirectories(workDir.toAbsolutePath());
        this.out = out;
        this.commands = new Commands(this.workDir.resolve("image-build.log"));
    }

    /**
     * Builds what is missing and returns the Kafka image's tag.
     *
     * @param mirror the Debian mirror for debootstrap, or null for the one apt uses here
     * @param force  rebuild both images even when present
     * @throws IllegalStateException when a step fails, with the reason and the log's end
     */
    public String build(String mirror, boolean force) {
        long begin = System.nanoTime();
        step("Docker engine " + commands.run(DOCKER_LIMIT, "docker", "version", "--format", "{{.Server.Version}}"));
        String image = recipe.imageTag();
        if (!force && present(image)) {
            step("Image " + image + " is present (its inputs are unchanged): nothing to build");
            return image;
        }
        if (force || !present(recipe.baseTag())) {
            buildBase(mirror);
        } else {
            step("Base image " + recipe.baseTag() + " is present");
        }
        buildKafkaImage(image);
        step("Built " + image + " in " + seconds(begin) + " s (log: " + workDir.resolve("image-build.log") + ")");
        return image;
    }

    private void buildBase(String mirror) {
        requireRoot();
        String source = Optional.ofNullable(mirror).or(() -> AptMirror.find(ETC_APT, recipe.suite()))
                .orElseThrow(() -> new IllegalStateException("No Debian mirror for suite " + recipe.suite()
                        + " in " + ETC_APT + "; name one with --mirror"));
        String debootstrap = executable("debootstrap", "apt-get install debootstrap");
        Path rootfs = workDir.resolve("rootfs-" + recipe.suite());
        long begin = System.nanoTime();
        try {
            deleteTree(rootfs);
            step("Base: debootstrap --variant=minbase " + recipe.suite() + " with " + ImageRecipe.JRE_PACKAGE
                    + " (about 1-2 minutes)");
            commands.run(DEBOOTSTRAP_LIMIT, debootstrap, "--variant=minbase", "--include=" + ImageRecipe.JRE_PACKAGE,
                    recipe.suite(), rootfs.toString(), source);
            // Package caches and lists are of no use in the image.
            commands.run(DOCKER_LIMIT, "sh", "-c", "rm -rf '" + rootfs + "'/var/cache/apt/archives/*.deb '"
                    + rootfs + "'/var/lib/apt/lists/*");
            step("Base: docker import as " + recipe.baseTag());
            Path tar = workDir.resolve("rootfs-" + recipe.suite() + ".tar");
            try {
                commands.run(DOCKER_LIMIT, "tar", "-C", rootfs.toString(), "-cf", tar.toString(), ".");
                commands.run(DOCKER_LIMIT, tar, "docker", "import", "--message", "kscale base: Debian "
                        + recipe.suite() + " minbase with " + ImageRecipe.JRE_PACKAGE, "-", recipe.baseTag());
            } finally {
                deleteTree(tar);
            }
            step("Base: done in " + seconds(begin) + " s");
        } finally {
            deleteTree(rootfs);
        }
    }

    private void buildKafkaImage(String image) {
        Path context = workDir.resolve("context");
        try {
            deleteTree(context);
            step("Kafka " + recipe.kafkaVersion() + ": build context with " + recipe.jars().size() + " broker jars");
            writeContext(context);
            step("Kafka " + recipe.kafkaVersion() + ": docker build " + image);
            commands.run(DOCKER_LIMIT, "docker", "build", "--force-rm", "--quiet",
                    "--build-arg", "BASE=" + recipe.baseTag(),
                    "--label", "io.kscale.image=" + image,
                    "-t", image, context.toString());
        } finally {
            deleteTree(context);
        }
    }

    private void writeContext(Path context) {
        try {
            for (String dir : new String[] {"libs", "config", "docker", "data"}) {
                Files.createDirectories(context.resolve(dir));
            }
            for (Map.Entry<String, String> file : ImageRecipe.FILES.entrySet()) {
                Path target = context.resolve(file.getValue());
                Files.write(target, ImageRecipe.resource(file.getKey()));
                if (file.getValue().startsWith("docker/")) {
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rwxr-xr-x"));
                }
            }
            for (Path jar : recipe.jars()) {
                Path target = context.resolve("libs").resolve(jar.getFileName());
                try {
                    Files.createLink(target, jar); // no copy of ~45 MB when on one file system
                } catch (IOException | UnsupportedOperationException e) {
                    Files.copy(jar, target);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the image's build context in " + context, e);
        }
    }

    private boolean present(String image) {
        return commands.succeeds(DOCKER_LIMIT, "docker", "image", "inspect", "--format", "{{.Id}}", image);
    }

    private void requireRoot() {
        String uid = commands.run(DOCKER_LIMIT, "id", "-u");
        if (!"0".equals(uid)) {
            throw new IllegalStateException("Building the base image runs debootstrap, which needs root (uid 0, not "
                    + uid + "): run as root, or pull " + "apache/kafka instead");
        }
    }

    /** The path of a command on PATH or in the sbin folders (not on a normal user's PATH). */
    private static String executable(String name, String install) {
        String path = System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin";
        for (String dir : path.split(":")) {
            Path candidate = Path.of(dir.isEmpty() ? "." : dir, name);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new IllegalStateException(name + " is not installed; install it with: " + install);
    }

    private void deleteTree(Path path) {
        if (Files.exists(path)) {
            // rm, not Files.walk: a root file system holds device nodes and dangling symlinks.
            commands.run(DOCKER_LIMIT, "rm", "-rf", "--one-file-system", path.toString());
        }
    }

    private void step(String line) {
        out.println(line);
        out.flush();
    }

    private static long seconds(long beginNanos) {
        return Math.round((System.nanoTime() - beginNanos) / 1e9);
    }

    private static Path createDirectories(Path dir) {
        try {
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + dir, e);
        }
    }
}
