package io.kscale.assignor.internals.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

/** The members' order ({@link GroupMembers}): ties between equally loaded members break by it on every broker. */
class GroupMembersTest {

    private static final Uuid ORDERS = new Uuid(1, 1);

    @Test
    void shouldOrderMembersByHashCodeThenIdWhateverOrderTheCoordinatorListsThem() {
        // "Aa" and "BB" share a hash code (2112), as do "AaAa", "BBBB", "AaBB" and "BBAa".
        List<String> ids = new ArrayList<>(List.of("BB", "Aa", "BBBB", "AaAa", "BBAa", "AaBB", "c", "m0001", "m0010"));
        TestGroup group = new TestGroup().topic(ORDERS, 4);
        ids.forEach(id -> group.member(id, ORDERS));
        String[] expected = ids.stream()
                .sorted((a, b) -> a.hashCode() != b.hashCode() ? Integer.compare(a.hashCode(), b.hashCode()) : a.compareTo(b))
                .toArray(String[]::new);
        assertThat(expected).startsWith("c", "Aa", "BB"); // 99, then 2112 twice
        SplittableRandom random = new SplittableRandom(20261206L);
        for (int i = 0; i < 20; i++) {
            Collections.shuffle(ids, new Random(random.nextLong()));
            List<String> listed = new ArrayList<>(ids);
            assertThat(new GroupMembers(listing(group, listed)).ids).as("listed as %s", listed).containsExactly(expected);
        }
    }

    @Test
    void shouldOrderThousandsOfIdsOfEverySignOfHashCodeByHashCodeThenId() {
        // Consumer-style ids (client id, a dash and a UUID) have hash codes of both signs; the
        // colliding pairs built from "Aa" and "BB" have equal ones.
        SplittableRandom random = new SplittableRandom(20261207L);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            ids.add("consumer-" + random.nextInt(50) + "-" + new Uuid(random.nextLong(), random.nextLong()));
        }
        for (String a : List.of("Aa", "BB")) {
            for (String b : List.of("Aa", "BB")) {
                for (String c : List.of("Aa", "BB")) {
                    ids.add("x" + a + b + c);
                }
            }
        }
        TestGroup group = new TestGroup().topic(ORDERS, 4);
        ids.forEach(id -> group.member(id, ORDERS));
        String[] expected = ids.stream()
                .sorted((a, b) -> a.hashCode() != b.hashCode() ? Integer.compare(a.hashCode(), b.hashCode()) : a.compareTo(b))
                .toArray(String[]::new);
        assertThat(ids.stream().filter(id -> id.hashCode() < 0).count()).as("ids of negative hash code").isGreaterThan(1_000);
        Collections.shuffle(ids, new Random(random.nextLong()));

        assertThat(new GroupMembers(listing(group, ids)).ids).containsExactly(expected);
    }

    @Test
    void shouldSortPackedHashesAsAComparisonSortDoesAtEverySizeAndSpreadOfHashes() {
        SplittableRandom random = new SplittableRandom(20261208L);
        for (int size : new int[] {0, 1, 2, 255, 256, 257, 2_000, 70_000}) {
            // Full-range hashes, and hashes from a few values each side of zero (many equal, their
            // order then by index: the sort must be stable).
            for (int spread : new int[] {0, 3, 300}) {
                long[] keys = new long[size];
                for (int i = 0; i < size; i++) {
                    int hash = spread == 0 ? random.nextInt() : random.nextInt(-spread, spread + 1);
                    keys[i] = (long) hash << 32 | i;
                }
                long[] expected = keys.clone();
                Arrays.sort(expected);

                assertThat(GroupMembers.byHash(keys)).as("%d keys, spread %d", size, spread).containsExactly(expected);
            }
        }
    }

    @Test
    void shouldDropNullAndRepeatedIds() {
        TestGroup group = new TestGroup().topic(ORDERS, 4).member("Aa", ORDERS).member("BB", ORDERS).member("x", ORDERS);
        List<String> listed = Arrays.asList("BB", null, "x", "Aa", "BB", "x", null, "Aa");

        assertThat(new GroupMembers(listing(group, listed)).ids).containsExactly("x", "Aa", "BB");
    }

    /** @return the group's spec, listing the member ids as given (repeats and nulls included) */
    private static ForwardingGroupSpec listing(TestGroup group, List<String> ids) {
        return new ForwardingGroupSpec(group.spec()) {
            @Override
            public Collection<String> memberIds() {
                return ids;
            }
        };
    }
}
