package io.allsum.worker.agent;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * How many failures a worker tolerates: at most {@code maxFailures} within any {@code window}. Failures older than
 * the window are forgotten, so a worker that fails now and then over days keeps going, while one that fails in a
 * tight loop stops. Agent thread only.
 */
final class RestartBudget {

    private final int maxFailures;
    private final long windowNanos;
    private final LongSupplier clock;
    private final Deque<Long> failures = new ArrayDeque<>();

    RestartBudget(int maxFailures, Duration window, LongSupplier nanoClock) {
        if (maxFailures < 0) {
            throw new IllegalArgumentException("maxFailures must be >= 0, was " + maxFailures);
        }
        if (window == null || window.isNegative() || window.isZero()) {
            throw new IllegalArgumentException("the restart window must be positive, was " + window);
        }
        this.maxFailures = maxFailures;
        this.windowNanos = window.toNanos();
        this.clock = nanoClock;
    }

    RestartBudget(int maxFailures, Duration window) {
        this(maxFailures, window, System::nanoTime);
    }

    /** Counts one failure now; false when that makes more than {@code maxFailures} within the window. */
    boolean recordFailure() {
        long now = clock.getAsLong();
        forgetOlderThan(now);
        failures.addLast(now);
        return failures.size() <= maxFailures;
    }

    /** Failures within the window ending now. */
    int failuresInWindow() {
        forgetOlderThan(clock.getAsLong());
        return failures.size();
    }

    int maxFailures() {
        return maxFailures;
    }

    Duration window() {
        return Duration.ofNanos(windowNanos);
    }

    private void forgetOlderThan(long now) {
        while (!failures.isEmpty() && now - failures.peekFirst() >= windowNanos) {
            failures.removeFirst();
        }
    }
}
