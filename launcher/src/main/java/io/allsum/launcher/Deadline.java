package io.allsum.launcher;

import java.time.Duration;

/** A point in time that every wait of the launcher measures itself against, so that nothing hangs. */
public record Deadline(long nanos) {

    public static Deadline in(Duration d) {
        return new Deadline(System.nanoTime() + d.toNanos());
    }

    public boolean passed() {
        return remaining().isZero();
    }

    public Duration remaining() {
        long left = nanos - System.nanoTime();
        return left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
    }

    /** The remaining time, but at most {@code cap}. */
    public Duration remainingAtMost(Duration cap) {
        Duration left = remaining();
        return left.compareTo(cap) < 0 ? left : cap;
    }

    /** Sleeps {@code step} or until the deadline, whichever is sooner. */
    public void sleep(Duration step) {
        try {
            Thread.sleep(remainingAtMost(step));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException("interrupted");
        }
    }
}
