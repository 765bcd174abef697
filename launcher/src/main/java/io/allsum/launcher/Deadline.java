package io.allsum.launcher;

import java.time.Duration;
import java.time.Instant;

/**
 * A point in time that every wait of the launcher measures itself against, so that nothing hangs. {@code label}
 * names it as the user set it ("--timeout 5 s"), for messages; null for internal deadlines.
 */
public record Deadline(long nanos, String label) {

    public static Deadline in(Duration d) {
        return new Deadline(System.nanoTime() + d.toNanos(), null);
    }

    /** {@code d} after this JVM started: one clock for the whole command, start-up included. */
    public static Deadline sinceProcessStart(Duration d, String label) {
        Duration elapsed = ProcessHandle.current().info().startInstant()
                .map(start -> Duration.between(start, Instant.now())).filter(e -> !e.isNegative())
                .orElse(Duration.ZERO);
        return new Deadline(System.nanoTime() + d.minus(elapsed).toNanos(), label);
    }

    /** {@code d} from now, named {@code label}. */
    public static Deadline in(Duration d, String label) {
        return new Deadline(System.nanoTime() + d.toNanos(), label);
    }

    /** Whichever of the two passes first, with its label. */
    public Deadline earlier(Deadline other) {
        return other == null || nanos - other.nanos <= 0 ? this : other;
    }

    /** "within --timeout 5 s" for messages, or "in time" when unnamed. */
    public String within() {
        return label == null ? "in time" : "within " + label;
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
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", e);
        }
    }
}
