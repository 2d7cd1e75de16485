package io.kscale.lab.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The TLS material and passwords of one {@link ClusterSecurity#SASL_SSL} cluster, made when it
 * starts, under {@code <cluster>/security/}, and the settings that use them.
 *
 * <p>One self-signed certificate ({@value #BROKER_CN}, valid for {@code 127.0.0.1} and
 * {@code localhost}) serves every node, made with the JDK's {@code keytool} in a child process
 * (passwords passed in its environment, not its command line). The truststore holds that
 * certificate, so it trusts every node, and the nodes trust each other: replication and the
 * controllers run over mutual TLS, as the principal {@value #BROKER_PRINCIPAL}. Clients use
 * SCRAM-SHA-512 over TLS; the admin user ({@value #ADMIN_USER}) is created when storage is
 * formatted ({@code --add-scram}, read by {@code StorageTool} from an argument file, never from
 * its command line), and both the admin and the node principal are super users.
 * Every password is 24 random bytes, base64url: {@link #secrets()} lists them all, so that a test
 * can check that none is ever logged.
 *
 * <p>No other user of the machine can read any of it: the folder is created with mode 0700,
 * keytool runs with umask 077 (so it creates the keystores 0600), and every file holding a
 * password is created 0600 ({@link PrivateFiles}). Command lines are world-readable
 * ({@code /proc/<pid>/cmdline}), so no secret is ever passed as an argument.
 */
final class ClusterCredentials {

    static final String ADMIN_USER = ClusterSecurity.ADMIN_USER;
    static final String MECHANISM = "SCRAM-SHA-512";
    static final String BROKER_CN = "kscale-broker";
    static final String BROKER_PRINCIPAL = "User:CN=" + BROKER_CN;
    private static final String LOGIN_MODULE = "org.apache.kafka.common.security.scram.ScramLoginModule";
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path keystore;
    private final Path truststore;
    private final String keystorePassword;
    private final String truststorePassword;
    private final String adminPassword;
    private final Set<String> secrets = ConcurrentHashMap.newKeySet();

    /** Passwords and file names under {@code dir}; makes no file ({@link #generate} does). */
    ClusterCredentials(Path dir) {
        this.keystore = dir.resolve("broker-keystore.p12");
        this.truststore = dir.resolve("truststore.p12");
        this.keystorePassword = newSecret();
        this.truststorePassword = newSecret();
        this.adminPassword = newSecret();
    }

    /** Makes the passwords, the nodes' keystore and the truststore under {@code <clusterDir>/security/}. */
    static ClusterCredentials generate(Path clusterDir) {
        Path dir = PrivateFiles.createDirectory(clusterDir.resolve("security"));
        ClusterCredentials credentials = new ClusterCredentials(dir);
        Path pem = dir.resolve("broker-cert.pem");
        Map<String, String> env = Map.of("KS_PASS", credentials.keystorePassword,
                "TS_PASS", credentials.truststorePassword);
        keytool(dir, env, "-genkeypair", "-alias", BROKER_CN, "-keyalg", "EC", "-groupname", "secp256r1",
                "-validity", "30", "-dname", "CN=" + BROKER_CN, "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                "-storetype", "PKCS12", "-keystore", credentials.keystore.toString(), "-storepass:env", "KS_PASS");
        keytool(dir, env, "-exportcert", "-rfc", "-alias", BROKER_CN, "-file", pem.toString(),
                "-keystore", credentials.keystore.toString(), "-storepass:env", "KS_PASS");
        keytool(dir, env, "-importcert", "-noprompt", "-alias", BROKER_CN, "-file", pem.toString(),
                "-storetype", "PKCS12", "-keystore", credentials.truststore.toString(), "-storepass:env", "TS_PASS");
        return credentials;
    }

    /** The {@code listener.security.protocol.map} of a node. */
    static String protocolMap() {
        return "EXTERNAL:SASL_SSL,INTERNAL:SSL,CONTROLLER:SSL";
    }

    /** Broker settings: TLS on every listener, SCRAM on the client one, the authorizer and its super users. */
    Map<String, String> brokerSettings() {
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        settings.put("allow.everyone.if.no.acl.found", "false");
        settings.put("super.users", "User:" + ADMIN_USER + ";" + BROKER_PRINCIPAL);
        settings.put("sasl.enabled.mechanisms", MECHANISM);
        settings.put("listener.name.external.scram-sha-512.sasl.jaas.config", LOGIN_MODULE + " required;");
        settings.put("ssl.keystore.type", "PKCS12");
        settings.put("ssl.keystore.location", keystore.toAbsolutePath().toString());
        settings.put("ssl.keystore.password", keystorePassword);
        settings.put("ssl.key.password", keystorePassword);
        settings.put("ssl.truststore.type", "PKCS12");
        settings.put("ssl.truststore.location", truststore.toAbsolutePath().toString());
        settings.put("ssl.truststore.password", truststorePassword);
        settings.put("listener.name.internal.ssl.client.auth", "required");
        settings.put("listener.name.controller.ssl.client.auth", "required");
        return settings;
    }

    /**
     * Writes the storage-format arguments that create the admin's SCRAM credential to a file
     * only its owner may read, and returns the one argument that makes {@code StorageTool} read
     * them from it ({@code @file}: its argument parser takes each line of the file as one
     * argument). The password never appears on a command line. Delete the file once every node
     * is formatted.
     *
     * @param file where to write them
     * @return the format arguments to pass: {@code @<file>}
     */
    List<String> formatArguments(Path file) {
        PrivateFiles.write(file, List.of("--add-scram",
                MECHANISM + "=[name=" + ADMIN_USER + ",password=" + adminPassword + "]"));
        return List.of("@" + file.toAbsolutePath());
    }

    /** Client settings of the admin user, a super user. */
    Map<String, Object> adminProperties(String bootstrapServers) {
        return clientProperties(bootstrapServers, ADMIN_USER, adminPassword);
    }

    /** Client settings of a SCRAM user over TLS: connection, mechanism, JAAS login and truststore. */
    Map<String, Object> clientProperties(String bootstrapServers, String user, String password) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("bootstrap.servers", bootstrapServers);
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", MECHANISM);
        props.put("sasl.jaas.config", LOGIN_MODULE + " required username=\"" + user + "\" password=\"" + password + "\";");
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.location", truststore.toAbsolutePath().toString());
        props.put("ssl.truststore.password", truststorePassword);
        return props;
    }

    /** A new random password, remembered in {@link #secrets()}. */
    String newSecret() {
        byte[] bytes = new byte[24];
        RANDOM.nextBytes(bytes);
        String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        secrets.add(secret);
        return secret;
    }

    /** Every password made for this cluster so far: keystore, truststore, admin and user passwords. */
    Set<String> secrets() {
        return Set.copyOf(secrets);
    }

    /**
     * Writes client settings as a properties file readable only by its owner, one {@code key=value}
     * per line, as Kafka's tools and {@link java.util.Properties#load} read it.
     */
    static void writeProperties(Path file, Map<String, Object> props) {
        List<String> lines = new ArrayList<>();
        lines.add("# Client settings of a kscale lab cluster; secrets are valid for this cluster only.");
        props.forEach((k, v) -> lines.add(k + "=" + v));
        PrivateFiles.write(file, lines);
    }

    /** Runs keytool; with umask 077 where there is a POSIX shell, so that the keystores it creates are 0600. */
    private static void keytool(Path dir, Map<String, String> env, String... args) {
        List<String> command = new ArrayList<>();
        if (PrivateFiles.posix() && Files.isExecutable(Path.of("/bin/sh"))) {
            // $0 is keytool, "$@" its arguments: nothing is parsed by the shell.
            command.addAll(List.of("/bin/sh", "-c", "umask 077 && exec \"$0\" \"$@\""));
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Path log = dir.resolve("keytool.log");
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            builder.environment().putAll(env);
            Process process = builder.start();
            if (!process.waitFor(1, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool " + args[0] + " failed; see " + log);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot run keytool", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running keytool", e);
        }
    }
}
