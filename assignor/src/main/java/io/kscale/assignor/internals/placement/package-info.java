/**
 * The placement engine: given tasks, clients with their prior tasks and lags, and settings, it
 * decides each client's active, standby and warmup tasks and when to rebalance again. Pure Java,
 * no Kafka types: the consumer assignor and the Kafka Streams assignor translate their own types
 * into a {@link io.kscale.assignor.internals.placement.PlacementRequest} and back.
 *
 * <p>Entry point: {@link io.kscale.assignor.internals.placement.PlacementEngine#place(PlacementRequest)}.
 * Input: {@link io.kscale.assignor.internals.placement.TaskDescription},
 * {@link io.kscale.assignor.internals.placement.ClientDescription},
 * {@link io.kscale.assignor.internals.placement.PlacementSettings}. Output:
 * {@link io.kscale.assignor.internals.placement.Placement}, {@link io.kscale.assignor.internals.placement.ClientPlacement},
 * {@link io.kscale.assignor.internals.placement.FollowUp}, {@link io.kscale.assignor.internals.placement.PlacementOutcome}.
 * A build check keeps {@code org.apache.kafka} out of this package. Clients shared by several
 * requests (consumer members reading several groups of topics) carry the others' load as
 * {@link io.kscale.assignor.internals.placement.ClientDescription#baseLoad()}, and
 * {@link io.kscale.assignor.internals.placement.CrossGroupBalancer} evens what only a chain of
 * requests can.
 *
 * <p><b>The cost order</b> ({@link io.kscale.assignor.internals.placement.PlacementEngine}): replay time
 * first (no stateful task active on a client beyond the acceptable lag while a caught-up client
 * exists; orphans restored where they are caught up soonest when that beats the move it costs),
 * then even load, then the spread of co-location groups, then the fewest moves.
 *
 * <p><b>Orphans after a crash with no standbys</b>
 * ({@link io.kscale.assignor.internals.placement.OrphanRestores}). Nobody has the crashed instance's state,
 * so each of its tasks is down until some instance has restored it. Balance alone sends them all
 * to the fresh replacement, the only instance with room, which restores them at once, sharing its
 * rate. The engine instead places them, largest first, where they are caught up soonest, when
 * that cuts the total time to caught-up by more than the move it costs: a client c other than
 * the balanced home h takes an orphan with {@code r} records to restore when
 * {@code (Q(h) + r) / rate(h) > (Q(c) + r + n(c) * r) / rate(c)}, where {@code Q} and {@code n}
 * are the records and number of orphans a client got so far. The left side is the orphan's time
 * to caught-up at home; the right its time on c plus the delay it adds to c's other orphans. The
 * move's cost is the warmup balance then needs on h (a caught-up task moves there instead): it
 * slows h's restores as much as the orphan would have, so it cancels the delay the orphan spares
 * them. Worked example, every instance restoring 10,000 records/s, acceptable lag 10,000: A, B, C
 * and D run 4 tasks each; D crashes, a fresh E replaces it, D's four tasks have 1,000,000 records
 * each to restore. Balance puts all four on E: each shares E's rate and is caught up after 400 s,
 * 1,600 task-seconds of downtime. The engine keeps d0 on E (100 s: nobody beats it), and sends
 * d1, d2, d3 to A, B and C (100 s each on an idle instance, against 200 s on E): all caught up
 * after 100 s, 400 task-seconds. The price: 3 moves, one caught-up task each from A, B and C to E,
 * which E warms up without downtime once d0 has caught up (a client restoring an active task gets
 * no warmup meanwhile, and the follow-up waits for it). Joins and standby failovers have no
 * orphans, so they move what they moved before.
 *
 * <p><b>When to look again</b> ({@link io.kscale.assignor.internals.placement.Placement#followUp()}): when the
 * copies in flight are predicted to have caught up, from each client's restore rate, which the
 * group leader learns from the lags it sees at successive rebalances
 * ({@link io.kscale.assignor.internals.placement.RestoreRateLearner}) unless one is configured.
 */
package io.kscale.assignor.internals.placement;
