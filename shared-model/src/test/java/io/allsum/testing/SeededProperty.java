package io.allsum.testing;

import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Checks a property over inputs drawn from a seeded {@link SplittableRandom}. The seed is fixed, so every build
 * checks the same inputs; {@code -Dallsum.test.seed=N} (or {@code =random}) explores others and
 * {@code -Dallsum.test.tries=N} changes how many. A failure names the input, the try and the seed that reproduces it.
 * Shared with the other modules' tests through shared-model's test-jar.
 */
public final class SeededProperty {

    public static final String SEED_PROPERTY = "allsum.test.seed";
    public static final String TRIES_PROPERTY = "allsum.test.tries";
    private static final long DEFAULT_SEED = 20261130L;
    private static final int DEFAULT_TRIES = 1000;

    private SeededProperty() {
    }

    public static <T> void forAll(Function<SplittableRandom, T> generator, Consumer<T> property) {
        long seed = seed();
        int tries = Integer.getInteger(TRIES_PROPERTY, DEFAULT_TRIES);
        SplittableRandom random = new SplittableRandom(seed);
        for (int attempt = 1; attempt <= tries; attempt++) {
            T input = generator.apply(random);
            try {
                property.accept(input);
            } catch (AssertionError | RuntimeException failure) {
                throw new AssertionError("property failed on try " + attempt + " of " + tries + " for input " + input
                        + "; reproduce with -D" + SEED_PROPERTY + "=" + seed + "\n" + failure.getMessage(), failure);
            }
        }
    }

    private static long seed() {
        String value = System.getProperty(SEED_PROPERTY, "").strip();
        if (value.isEmpty()) {
            return DEFAULT_SEED;
        }
        return value.equals("random") ? new SplittableRandom().nextLong() : Long.decode(value);
    }
}
