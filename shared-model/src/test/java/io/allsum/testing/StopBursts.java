package io.allsum.testing;

import java.time.Duration;
import java.util.Locale;

/**
 * Stops a process with SIGSTOP for {@code stop} once every {@code every}, and lets it run in between: a rank that
 * stalls (a noisy neighbour, a GC pause) rather than one that is slow all the time. {@link #close} continues it.
 */
public final class StopBursts implements AutoCloseable {

    private final ProcessHandle process;
    private final Duration stop;
    private final Duration every;
    private final Thread thread;
    private volatile boolean running = true;
    private volatile int bursts;

    private StopBursts(ProcessHandle process, Duration stop, Duration every) {
        this.process = process;
        this.stop = stop;
        this.every = every;
        this.thread = Thread.ofPlatform().daemon().name("stop-bursts-" + process.pid()).unstarted(this::loop);
    }

    public static StopBursts start(long pid, Duration stop, Duration every) {
        if (stop.compareTo(every) >= 0) {
            throw new IllegalArgumentException("a stop of " + stop + " leaves no running time in " + every);
        }
        ProcessHandle process = ProcessHandle.of(pid).orElseThrow(() -> new IllegalArgumentException(
                "no process " + pid));
        StopBursts bursts = new StopBursts(process, stop, every);
        bursts.thread.start();
        return bursts;
    }

    private void loop() {
        try {
            while (running && process.isAlive()) {
                signal("STOP");
                bursts++;
                Thread.sleep(stop);
                signal("CONT");
                Thread.sleep(every.minus(stop));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            signal("CONT");
        }
    }

    private void signal(String name) {
        try {
            new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start().waitFor();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
        signal("CONT");
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "SIGSTOP %d ms every %d ms, %d bursts", stop.toMillis(), every.toMillis(),
                bursts);
    }
}
