package io.kscale.admin.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;

/** Prints the command's version and the Kafka client version it runs. */
final class AdminVersion implements CommandLine.IVersionProvider {

    @Override
    public String[] getVersion() {
        String version = KscaleAdmin.class.getPackage().getImplementationVersion();
        return new String[] {
            "kscale-admin " + (version == null ? "(development build)" : version),
            "kafka-clients " + kafkaClientsVersion(),
        };
    }

    /** kafka-clients records its version in this resource; its own parser is internal API. */
    private static String kafkaClientsVersion() {
        try (InputStream in = KscaleAdmin.class.getResourceAsStream("/kafka/kafka-version.properties")) {
            Properties properties = new Properties();
            if (in != null) {
                properties.load(in);
            }
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
