package io.allsum.worker.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
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

    /** USER_HZ, the unit of /proc/PID/stat's times: 100 on every Linux this runs on. */
    private static final int TICKS_PER_SECOND = 100;

    /**
     * Waits until {@code processes} together use under {@code cores} of CPU over a second (read from /proc), at most
     * {@code deadline}, then goes on either way, saying so: JVMs that have just started go on compiling and
     * initialising for seconds, and a measurement that judges speed should not start among them.
     */
    static void awaitQuiet(String what, List<ProcessHandle> processes, double cores, Duration deadline)
            throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        long before = cpuTicks(processes);
        double used = Double.NaN;
        while (System.nanoTime() - end < 0) {
            Thread.sleep(1000);
            long now = cpuTicks(processes);
            used = (now - before) / (double) TICKS_PER_SECOND;
            if (used < cores) {
                return;
            }
            before = now;
        }
        System.out.printf("it: %s still used %.2f cores after %s; measuring anyway%n", what, used, deadline);
    }

    private static long cpuTicks(List<ProcessHandle> processes) {
        long ticks = 0;
        for (ProcessHandle p : processes) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
                String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                ticks += Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
            } catch (IOException | RuntimeException e) {
                // gone, or not Linux: counts as idle
            }
        }
        return ticks;
    }
}
