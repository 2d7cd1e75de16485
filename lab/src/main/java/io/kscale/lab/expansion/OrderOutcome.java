package io.kscale.lab.expansion;

/** Per-key order as a group's application saw it: keys and records that came out of order. */
public final class OrderOutcome {

    private final int keysOutOfOrder;
    private final long recordsOutOfOrder;

    OrderOutcome(int keysOutOfOrder, long recordsOutOfOrder) {
        this.keysOutOfOrder = keysOutOfOrder;
        this.recordsOutOfOrder = recordsOutOfOrder;
    }

    static OrderOutcome of(KeyOrder order) {
        return new OrderOutcome(order.keysOutOfOrder(), order.recordsOutOfOrder());
    }

    /** @return keys with a record handed out after a higher number of the same key */
    public int keysOutOfOrder() {
        return keysOutOfOrder;
    }

    /** @return records handed out after a higher number of their key */
    public long recordsOutOfOrder() {
        return recordsOutOfOrder;
    }

    @Override
    public String toString() {
        return keysOutOfOrder + " keys / " + recordsOutOfOrder + " records out of order";
    }
}
