package io.allsum.worker.it;

import java.time.Duration;
import java.util.function.Predicate;
import java.util.function.Supplier;

/** Waits for a state the cluster reaches by itself. Only waits, never asserts on time. */
final class Polling {

    private Polling() {
    }

    /**
     * Reads until the value meets {@code condition}; a read that throws is retried (a server may be restarting, a
     * group may not exist yet). Fails after {@code deadline} with the last value seen and the last error.
     */
    static <T> T await(String what, Duration deadline, Duration pause, Supplier<T> read, Predicate<T> condition)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        T last = null;
        RuntimeException lastError = null;
        while (System.nanoTime() - end < 0) {
            try {
                last = read.get();
                lastError = null;
                if (condition.test(last)) {
                    return last;
                }
            } catch (RuntimeException e) {
                lastError = e;
            }
            Thread.sleep(pause.toMillis());
        }
        AssertionError failure = new AssertionError(what + " did not reach the expected state within " + deadline
                + "; last seen: " + last);
        if (lastError != null) {
            failure.initCause(lastError);
        }
        throw failure;
    }
}
