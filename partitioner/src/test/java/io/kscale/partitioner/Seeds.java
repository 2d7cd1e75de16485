package io.kscale.partitioner;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.opentest4j.TestAbortedException;

/**
 * Seeded random cases for the properties of this module (methods marked {@link Property}), in
 * plain JUnit, the draws they make, and the seed of its other randomised tests ({@link #seed}). A property returns {@code Seeds.tries(n, random -> ...)}:
 * {@code n} dynamic tests, each drawing its case from a {@link SplittableRandom} of its own seed,
 * named {@code try i, seed s}. The first try's seed is the run's seed; each next one is a fixed
 * mix of the one before. The run's seed is {@value #DEFAULT_SEED} unless told otherwise with
 * {@code -Dkscale.seed}:
 * <ul>
 * <li>{@code -Dkscale.seed=<n>}: the tries start at {@code n}, so a failed try's seed, given
 * here, replays that case first (and then the tries that followed it);</li>
 * <li>{@code -Dkscale.seed=random}: every property draws a fresh seed (what {@code -Pfresh-seeds}
 * runs).</li>
 * </ul>
 * Each property prints its first seed; a failed try throws an {@link AssertionError} naming its
 * seed and the command that reruns it, with the original failure as its cause. After
 * {@value #FAILURES_SHOWN} failed tries the rest of the property's tries are skipped, so that a
 * broken invariant does not print thousands of failures.
 */
final class Seeds {

    /** The system property that sets the run's seed: a number, or {@code random}. */
    static final String SEED_PROPERTY = "kscale.seed";
    /** The seed of every CI run: a red build is a change's doing, not the draw's. */
    static final long DEFAULT_SEED = 20261202L;
    static final int FAILURES_SHOWN = 3;
    /** A failure message shows this much of the sample at most (the seed reproduces all of it). */
    static final int SAMPLE_SHOWN = 2_000;
    static final int SHRINK_BUDGET = 2_000;
    private static final ThreadLocal<String> SAMPLE = new ThreadLocal<>();
    private static final String MODULE = "partitioner";

    /** One try of a property: draws its case from {@code random} and checks it. */
    @FunctionalInterface
    interface Case {
        void check(SplittableRandom random) throws Exception;
    }

    private Seeds() {
    }

    /**
     * The tries of the calling property: call it from the {@link Property} method, or from a
     * helper that method calls (the method's class and name name the property in the messages).
     */
    static Stream<DynamicTest> tries(int tries, Case check) {
        String property = propertyName();
        long[] seeds = new long[tries];
        seeds[0] = firstSeed();
        for (int i = 1; i < tries; i++) {
            seeds[i] = next(seeds[i - 1]);
        }
        System.out.printf("%s: %d tries from seed %d (rerun with -D%s=%d)%n", property, tries, seeds[0], SEED_PROPERTY, seeds[0]);
        AtomicInteger failures = new AtomicInteger();
        return IntStream.range(0, tries).mapToObj(i -> DynamicTest.dynamicTest("try " + (i + 1) + ", seed " + seeds[i], () -> {
            if (failures.get() >= FAILURES_SHOWN) {
                throw new TestAbortedException("not run: " + FAILURES_SHOWN + " tries of " + property + " failed already");
            }
            SAMPLE.remove();
            try {
                check.check(new SplittableRandom(seeds[i]));
            } catch (Exception | AssertionError failure) {
                failures.incrementAndGet();
                String sample = SAMPLE.get() == null ? "" : "sample: " + abbreviate(SAMPLE.get()) + System.lineSeparator();
                throw new AssertionError(String.format("%s failed at try %d of %d, seed %d. Replay it as the first try with"
                                + " -D%s=%d, e.g. mvn -B -pl %s test -Dtest='%s' -D%s=%d%n%s%s", property, i + 1, tries, seeds[i],
                        SEED_PROPERTY, seeds[i], MODULE, property, SEED_PROPERTY, seeds[i], sample, failure), failure);
            } finally {
                SAMPLE.remove();
            }
        }));
    }

    /** {@code Class#method} of the {@link Property} method that called (or whose helper called) {@link #tries}. */
    private static String propertyName() {
        StackWalker.StackFrame caller = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
                .walk(frames -> frames.filter(frame -> frame.getDeclaringClass() != Seeds.class && isProperty(frame)).findFirst())
                .orElseThrow(() -> new IllegalStateException("Seeds.tries must be called from a @Property method"));
        return caller.getDeclaringClass().getSimpleName() + "#" + caller.getMethodName();
    }

    private static boolean isProperty(StackWalker.StackFrame frame) {
        try {
            return frame.getDeclaringClass().getDeclaredMethod(frame.getMethodName()).isAnnotationPresent(Property.class);
        } catch (NoSuchMethodException notAPropertyMethod) {
            return false;
        }
    }

    /**
     * Names the sample a try drew, for its failure message: {@code Seeds.sample("T=%d, keys %s", tasks, keys)}.
     * Call it once the sample is drawn; a later call replaces it.
     */
    static void sample(String format, Object... args) {
        SAMPLE.set(String.format(format, args));
    }

    private static String abbreviate(String sample) {
        return sample.length() <= SAMPLE_SHOWN ? sample
                : sample.substring(0, SAMPLE_SHOWN) + "... (" + (sample.length() - SAMPLE_SHOWN) + " more characters)";
    }

    /**
     * The seed of a randomised test that is not a property: {@link #firstSeed()}, printed with
     * how to rerun it.
     */
    static long seed(String test) {
        long seed = firstSeed();
        System.out.println(test + ": seed " + seed + " (rerun with -D" + SEED_PROPERTY + "=" + seed + ")");
        return seed;
    }

    /**
     * Runs {@code check} on {@code sample}; if it fails (an assertion or an exception), looks for a
     * shorter list that still fails (removing runs of elements, halving their length down to one,
     * at most {@value #SHRINK_BUDGET} checks) and throws an {@link AssertionError} that names that
     * list, with its failure as the cause.
     */
    static <T> void checkShrinking(List<T> sample, Consumer<List<T>> check) {
        Throwable failure = failure(sample, check);
        if (failure == null) {
            return;
        }
        List<T> smallest = sample;
        Throwable smallestFailure = failure;
        int budget = SHRINK_BUDGET;
        for (int run = Math.max(1, smallest.size() / 2); run >= 1 && budget > 0; run /= 2) {
            for (int from = 0; from < smallest.size() && budget > 0; budget--) {
                List<T> shorter = new ArrayList<>(smallest.subList(0, from));
                shorter.addAll(smallest.subList(Math.min(smallest.size(), from + run), smallest.size()));
                Throwable shorterFailure = shorter.isEmpty() ? null : failure(shorter, check);
                if (shorterFailure != null) {
                    smallest = shorter;
                    smallestFailure = shorterFailure;
                } else {
                    from += run;
                }
            }
        }
        AssertionError shrunk = new AssertionError(String.format("shrunk from %d to %d elements that still fail: %s%n%s",
                sample.size(), smallest.size(), abbreviate(smallest.toString()), smallestFailure), smallestFailure);
        if (smallestFailure != failure) {
            shrunk.addSuppressed(failure);
        }
        throw shrunk;
    }

    private static <T> Throwable failure(List<T> sample, Consumer<List<T>> check) {
        try {
            check.accept(sample);
            return null;
        } catch (RuntimeException | AssertionError failure) {
            return failure;
        }
    }

    /** The run's seed: {@value #DEFAULT_SEED}, or as {@code -Dkscale.seed} says (a fresh one for {@code random}). */
    static long firstSeed() {
        String chosen = System.getProperty(SEED_PROPERTY, "").trim();
        if (chosen.isEmpty()) {
            return DEFAULT_SEED;
        }
        return "random".equals(chosen) ? ThreadLocalRandom.current().nextLong() : Long.parseLong(chosen);
    }

    /** The seed after {@code seed}: SplitMix64's finalizer, a bijection, so distinct seeds stay distinct. */
    static long next(long seed) {
        long z = seed + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    // ---- Draws. Bounds and edge values come more often than their share, as they tend to break things.

    /** An int in {@code [min, max]}, each bound one time in 20. */
    static int intBetween(SplittableRandom random, int min, int max) {
        int draw = random.nextInt(20);
        return draw == 0 ? min : draw == 1 ? max : (int) random.nextLong(min, (long) max + 1);
    }

    /** Any long: 0, 1, -1 and the extremes one time in 10, else uniform. */
    static long anyLong(SplittableRandom random) {
        return random.nextInt(10) == 0 ? pick(random, 0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE) : random.nextLong();
    }

    @SafeVarargs
    static <T> T pick(SplittableRandom random, T... values) {
        return values[random.nextInt(values.length)];
    }

    /** {@code minSize} to {@code maxSize} elements. */
    static <T> List<T> listOf(SplittableRandom random, int minSize, int maxSize, Function<SplittableRandom, T> element) {
        int size = intBetween(random, minSize, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(random));
        }
        return list;
    }
}
