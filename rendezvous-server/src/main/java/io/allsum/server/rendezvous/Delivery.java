package io.allsum.server.rendezvous;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * Counts the answers of one completed generation still to be written; when the last is written, reports the time
 * since completion (the {@code allsum.rendezvous.delivery} timer).
 */
public final class Delivery {

    private final long completedNanos;
    private final AtomicInteger outstanding;
    private final Consumer<Duration> onDelivered;

    Delivery(long completedNanos, int answers, Consumer<Duration> onDelivered) {
        this.completedNanos = completedNanos;
        this.outstanding = new AtomicInteger(answers);
        this.onDelivered = onDelivered;
    }

    /** One answer was written (or its client went away). */
    public void answered() {
        if (outstanding.decrementAndGet() == 0) {
            onDelivered.accept(Duration.ofNanos(System.nanoTime() - completedNanos));
        }
    }
}
