package io.allsum.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
        return new Deadline(System.nanoTime() + d.minus(processAge()).toNanos(), label);
    }

    /**
     * How long this process has run, to 10 ms: /proc's start tick against /proc/uptime, one clock since boot.
     * ProcessHandle's startInstant adds a boot time in whole seconds, up to 1 s early (a 5 s --timeout at 4.5 s).
     */
    static Duration processAge() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] afterName = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(afterName[STARTTIME_FIELD - 3]);
            double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            Duration age = Duration.ofMillis(Math.round(uptime * 1000) - startTicks * 1000 / USER_HZ);
            return age.isNegative() ? Duration.ZERO : age;
        } catch (IOException | RuntimeException notLinux) {
            return ProcessHandle.current().info().startInstant()
                    .map(start -> Duration.between(start, Instant.now())).filter(e -> !e.isNegative())
                    .orElse(Duration.ZERO);
        }
    }

    /** proc(5): field 22 of /proc/PID/stat, in clock ticks of USER_HZ, which Linux fixes at 100 for user space. */
    private static final int STARTTIME_FIELD = 22;
    private static final long USER_HZ = 100;

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
