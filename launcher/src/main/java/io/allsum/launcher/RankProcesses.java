package io.allsum.launcher;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.ObjIntConsumer;

/**
 * The processes of {@code allsum run}, one per rank: each line a rank writes reaches one shared writer per stream
 * whole (println holds the writer's lock), after {@code [rank r] }. Stopped as {@link LocalCluster#stop} stops a
 * cluster, also from a shutdown hook, so that no rank outlives the launcher.
 */
final class RankProcesses implements AutoCloseable {

    /** A rank that exited, and its exit code. */
    record Exit(int rank, int code) {
    }

    private final List<Process> processes = new ArrayList<>();
    private final List<List<Thread>> relays = new ArrayList<>();
    private final BlockingQueue<Exit> exits = new LinkedBlockingQueue<>();
    private final Duration grace;
    private final Thread shutdownHook = new Thread(this::stopOnShutdown, "allsum-run-stop");
    private volatile boolean shuttingDown;
    private boolean stopped;
    private int exitsTaken;

    private RankProcesses(Duration grace) {
        this.grace = grace;
    }

    /**
     * Starts {@code command} {@code ranks} times; {@code environment} edits rank r's environment (inherited from this
     * JVM). A copy that cannot start stops the ones started and throws a usage error naming it.
     */
    static RankProcesses start(List<String> command, int ranks, ObjIntConsumer<Map<String, String>> environment,
                               PrintWriter out, PrintWriter err, Duration grace) {
        RankProcesses started = new RankProcesses(grace);
        Runtime.getRuntime().addShutdownHook(started.shutdownHook);
        try {
            for (int rank = 0; rank < ranks; rank++) {
                started.startRank(rank, command, environment, out, err);
            }
        } catch (RuntimeException e) {
            started.close();
            throw e;
        }
        return started;
    }

    private void startRank(int rank, List<String> command, ObjIntConsumer<Map<String, String>> environment,
                           PrintWriter out, PrintWriter err) {
        ProcessBuilder pb = new ProcessBuilder(command);
        environment.accept(pb.environment(), rank);
        Process process;
        try {
            process = pb.start();
        } catch (IOException e) {
            throw new LauncherException(ExitCodes.USAGE, "cannot start rank " + rank + " (" + command.getFirst()
                    + "): " + AllsumCommand.oneLine(e.getMessage()), e);
        }
        processes.add(process);
        try {
            // Copies of one program share no terminal: each reads an empty stdin.
            process.getOutputStream().close();
        } catch (IOException e) {
            // Its stdin is gone already.
        }
        String prefix = "[rank " + rank + "] ";
        relays.add(List.of(relay(process.getInputStream(), prefix, out, "allsum-rank-" + rank + "-out"),
                relay(process.getErrorStream(), prefix, err, "allsum-rank-" + rank + "-err")));
        process.onExit().thenAccept(p -> exits.add(new Exit(rank, p.exitValue())));
    }

    private static Thread relay(InputStream in, String prefix, PrintWriter to, String name) {
        return Thread.ofPlatform().daemon().name(name).start(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    to.println(prefix + line);
                }
            } catch (IOException e) {
                // The pipe broke: the rank is gone, and so is what it had not written yet.
            }
        });
    }

    /** The next rank to exit within {@code wait}, or null; each rank is returned once. */
    Exit nextExit(Duration wait) {
        try {
            Exit exit = exits.poll(wait.toNanos(), TimeUnit.NANOSECONDS);
            if (exit != null) {
                exitsTaken++;
            }
            return exit;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", e);
        }
    }

    /** Whether {@link #nextExit} has returned every rank. */
    boolean allExitsTaken() {
        return exitsTaken == processes.size();
    }

    /** The ranks whose process is alive, in rank order. */
    List<Integer> running() {
        List<Integer> alive = new ArrayList<>();
        for (int rank = 0; rank < processes.size(); rank++) {
            if (processes.get(rank).isAlive()) {
                alive.add(rank);
            }
        }
        return alive;
    }

    /** Whether the JVM is shutting down (Ctrl-C, SIGTERM): the ranks are being stopped by the hook. */
    boolean shuttingDown() {
        return shuttingDown;
    }

    /** Waits, at most {@code atMost}, until rank {@code rank}'s last lines are relayed. */
    void awaitOutput(int rank, Duration atMost) {
        awaitRelays(relays.get(rank), Deadline.in(atMost));
    }

    /** Waits, at most {@code atMost} in all, until every rank's last lines are relayed. */
    void awaitOutput(Duration atMost) {
        Deadline deadline = Deadline.in(atMost);
        relays.forEach(pair -> awaitRelays(pair, deadline));
    }

    private static void awaitRelays(List<Thread> threads, Deadline deadline) {
        try {
            for (Thread t : threads) {
                t.join(deadline.remaining());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the ranks still running; a second call waits for the first one's stop to end. */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        LocalCluster.stop(processes.stream().filter(Process::isAlive).toList(), grace);
    }

    private void stopOnShutdown() {
        shuttingDown = true;
        stop();
    }

    /** Stops the ranks, relays what they wrote last (briefly) and drops the shutdown hook. */
    @Override
    public void close() {
        stop();
        awaitOutput(Duration.ofSeconds(2));
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook is running or ran.
        }
    }
}
