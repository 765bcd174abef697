package io.allsum.client;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;

/**
 * How a call retries connection errors and 503: exponential backoff with full jitter (a uniform pause between 0
 * and {@code min(maxBackoff, initialBackoff * multiplier^attempt)}), for at most {@code deadline} per call.
 * Full jitter spreads thousands of workers that lost the server at the same moment over the whole backoff window.
 */
public record RetryPolicy(Duration initialBackoff, double multiplier, Duration maxBackoff, Duration deadline) {

    public static final RetryPolicy DEFAULT =
            new RetryPolicy(Duration.ofMillis(50), 2.0, Duration.ofSeconds(2), Duration.ofSeconds(30));

    public RetryPolicy {
        Objects.requireNonNull(initialBackoff, "initialBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(deadline, "deadline");
        if (initialBackoff.isNegative() || initialBackoff.isZero()) {
            throw new IllegalArgumentException("initialBackoff must be positive, was " + initialBackoff);
        }
        if (maxBackoff.compareTo(initialBackoff) < 0) {
            throw new IllegalArgumentException("maxBackoff " + maxBackoff + " is below initialBackoff " + initialBackoff);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number >= 1, was " + multiplier);
        }
        if (deadline.isNegative()) {
            throw new IllegalArgumentException("deadline must not be negative, was " + deadline);
        }
    }

    /** The same policy with another overall deadline per call. */
    public RetryPolicy withDeadline(Duration newDeadline) {
        return new RetryPolicy(initialBackoff, multiplier, maxBackoff, newDeadline);
    }

    /** The backoff ceiling before attempt {@code retry} (0 for the first retry), without jitter. */
    public Duration ceiling(int retry) {
        double nanos = initialBackoff.toNanos() * Math.pow(multiplier, Math.max(0, retry));
        return nanos >= maxBackoff.toNanos() ? maxBackoff : Duration.ofNanos((long) nanos);
    }

    /** A full-jitter pause before retry number {@code retry}: uniform in [0, ceiling(retry)]. */
    public Duration pause(int retry) {
        long ceiling = ceiling(retry).toNanos();
        return Duration.ofNanos(ThreadLocalRandom.current().nextLong(ceiling + 1));
    }

    /**
     * An "equal jitter" pause before retry number {@code retry}: uniform in [ceiling/2, ceiling]. For restarts after
     * a failure, which must back off by at least half the ceiling so that a failing loop never spins.
     */
    public Duration pauseAtLeastHalf(int retry) {
        long ceiling = ceiling(retry).toNanos();
        return Duration.ofNanos(ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling - ceiling / 2 + 1));
    }
}
