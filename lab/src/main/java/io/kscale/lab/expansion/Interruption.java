package io.kscale.lab.expansion;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * What ends every memory of a topic's task count T except a durable one, in
 * {@link InterruptedExpansionScenario}.
 */
public enum Interruption {
    /** Every member leaves (the group is empty, so the coordinator drops its target assignment), then as many join. */
    GROUP_RESTART("group restart"),
    /** Every broker restarts at once (killed, then started on its data) while the group stays: no broker remembers anything. */
    BROKER_RESTART("broker restart"),
    /** The group leaves, the topic is deleted and created again (a new topic id), and the group comes back. */
    TOPIC_RECREATED("topic re-created"),
    /**
     * The group ran kscale's classic assignor ({@link ExpansionPeer#KSCALE}); every member leaves
     * and as many come back on the consumer protocol, as a migration must be done (Kafka refuses to
     * convert a running classic group whose assignments carry userData).
     */
    MIGRATION("migration from the classic protocol");

    private final String label;

    Interruption(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** @return the name on the command line, e.g. {@code group-restart} */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * @param name a cli name, any case
     * @throws IllegalArgumentException naming the valid names if there is none of that name
     */
    public static Interruption fromCliName(String name) {
        for (Interruption interruption : values()) {
            if (interruption.cliName().equalsIgnoreCase(name.trim())) {
                return interruption;
            }
        }
        throw new IllegalArgumentException("unknown interruption '" + name + "'; choose from "
                + Arrays.stream(values()).map(Interruption::cliName).collect(Collectors.joining(", ")));
    }
}
