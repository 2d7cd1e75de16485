package io.kscale.lab.expansion;

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
}
