package io.allsum.bench.rendezvous;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The benchmark's client processes: the waiting ranks of a round spread over several JVMs (rank r in process
 * r mod P), each with its own HTTP client, selector thread and keep-alive connections, so that one client process is
 * not what is measured (TCPStore's reference spreads its ranks the same way). Each process reads one line per
 * round on stdin ({@code ROUND group n idBase64}) and answers one line on stdout: {@code DONE count
 * lastReceivedNanos fingerprint} or {@code ERROR message}. {@code System.nanoTime} is the host's monotonic clock,
 * the same in every process of one machine, so the parent compares their arrival times with its own.
 */
final class ForkedRanks {

    private static final List<Process> STARTED = new CopyOnWriteArrayList<>();

    private final List<Child> children;

    private ForkedRanks(List<Child> children) {
        this.children = children;
    }

    /** What the processes reported for one round, combined. */
    record Done(int count, long lastReceivedNanos, List<String> fingerprints) {
    }

    private record Child(Process process, PrintWriter in, LinkedBlockingQueue<String> lines) {
    }

    /**
     * Starts {@code procs} client processes of this JVM's class path with {@code javaOptions}, {@code arguments}
     * and their index, and waits until each is ready. The token travels in the environment ({@code ALLSUM_TOKEN}),
     * not on a command line that {@code ps} shows.
     */
    static ForkedRanks start(int procs, List<String> javaOptions, List<String> arguments, String token)
            throws IOException, InterruptedException {
        List<Child> children = new ArrayList<>();
        for (int i = 0; i < procs; i++) {
            List<String> command = new ArrayList<>(javaCommand(javaOptions));
            command.addAll(arguments);
            command.addAll(List.of("--child-index", Integer.toString(i)));
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
            if (token == null || token.isBlank()) {
                builder.environment().remove("ALLSUM_TOKEN");
            } else {
                builder.environment().put("ALLSUM_TOKEN", token);
            }
            Process process = builder.start();
            STARTED.add(process);
            LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
            // A platform thread: a virtual one blocked reading a pipe holds its carrier, and once the scheduler's
            // spare carriers retire (30 s idle), 4 such readers on 2 cores left no carrier for the HTTP client, so a
            // round held longer than 30 s (--hold) never sent its last join.
            Thread.ofPlatform().daemon().name("client-output-" + process.pid()).start(() -> {
                try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                        StandardCharsets.UTF_8))) {
                    for (String line; (line = out.readLine()) != null; ) {
                        lines.add(line);
                    }
                } catch (IOException e) {
                    lines.add("ERROR reading client process " + process.pid() + ": " + e);
                }
                lines.add("ERROR client process " + process.pid() + " exited");
            });
            children.add(new Child(process, new PrintWriter(process.getOutputStream(), true,
                    StandardCharsets.UTF_8), lines));
        }
        for (Child child : children) {
            String hello = child.lines().poll(60, TimeUnit.SECONDS);
            if (!"READY".equals(hello)) {
                throw new IllegalStateException("client process " + child.process().pid() + " did not start: "
                        + hello);
            }
        }
        return new ForkedRanks(children);
    }

    /** This JVM again, for the same class, from the same class path. */
    private static List<String> javaCommand(List<String> javaOptions) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(java, "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(javaOptions);
        command.addAll(List.of("-cp", classPath, RendezvousBenchmark.class.getName()));
        return command;
    }

    void startRound(String group, int n, String idBase64) {
        for (Child child : children) {
            child.lines().clear();
            child.in().println("ROUND " + group + " " + n + " " + idBase64);
        }
    }

    /** Throws when a process has already reported a failure (before the last rank posted). */
    void checkNoneFailed() {
        for (Child child : children) {
            String line = child.lines().peek();
            if (line != null && line.startsWith("ERROR")) {
                throw new IllegalStateException("client process " + child.process().pid() + ": " + line);
            }
            // A process with no rank this round (n - 1 < procs) reports "DONE 0" at once; any other early
            // DONE means a join completed before the last rank posted.
            if (line != null && !line.startsWith("DONE 0 ")) {
                throw new IllegalStateException("client process " + child.process().pid()
                        + " finished before the last rank posted: " + line);
            }
        }
    }

    Done awaitRound(long deadlineNanos) throws InterruptedException, TimeoutException {
        int count = 0;
        long last = 0;
        List<String> fingerprints = new ArrayList<>();
        for (Child child : children) {
            String line = child.lines().poll(Math.max(1, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new TimeoutException("client process " + child.process().pid() + " did not finish its round");
            }
            String[] parts = line.split(" ", 4);
            if (!parts[0].equals("DONE") || parts.length < 3) {
                throw new IllegalStateException("client process " + child.process().pid() + ": " + line);
            }
            count += Integer.parseInt(parts[1]);
            last = Math.max(last, Long.parseLong(parts[2]));
            if (parts.length == 4 && !parts[3].isEmpty()) {
                fingerprints.add(parts[3]);
            }
        }
        return new Done(count, last, fingerprints);
    }

    /** Ends these client processes (--fresh: after their round). */
    void stop() {
        List<Process> processes = children.stream().map(Child::process).toList();
        stop(processes);
        STARTED.removeAll(processes);
    }

    /** Ends every client process this JVM started. */
    static void stopAll() {
        stop(STARTED);
        STARTED.clear();
    }

    /** Closing stdin asks a process to end; one still running after 5 s is destroyed. */
    private static void stop(List<Process> processes) {
        for (Process process : processes) {
            try {
                process.getOutputStream().close();
            } catch (IOException e) {
                process.destroyForcibly(); // its stdin is gone: it cannot be asked
            }
        }
        for (Process process : processes) {
            try {
                if (!process.waitFor(5, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The client process: joins its share of each round's waiting ranks and reports when each answer came. */
    static int serve(RendezvousBenchmark.Session session, int index, int procs) throws Exception {
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out.println("READY");
        for (String line; (line = in.readLine()) != null; ) {
            String[] parts = line.split(" ");
            try {
                if (parts.length != 4 || !parts[0].equals("ROUND")) {
                    throw new IllegalArgumentException("unknown command: " + line);
                }
                out.println(round(session, parts[1], Integer.parseInt(parts[2]),
                        Base64.getDecoder().decode(parts[3]), index, procs));
            } catch (Exception e) {
                Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
                out.println("ERROR " + String.valueOf(cause).replaceAll("\\s+", " "));
            }
        }
        return 0;
    }

    private static String round(RendezvousBenchmark.Session session, String group, int n, byte[] id, int index,
                                int procs) throws Exception {
        List<byte[]> bodies = RendezvousBenchmark.joinBodies(group, n, session.backend(), id);
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        // Taken in completion order, so that a join that fails (while the others wait for the last rank) is
        // reported at once, not when the round's deadline runs out.
        CompletionService<RendezvousBenchmark.Answer> answers = new ExecutorCompletionService<>(session.threads());
        int count = 0;
        for (int rank = index; rank < n - 1; rank += procs) {
            byte[] body = bodies.get(rank);
            int r = rank;
            answers.submit(() -> session.joinUntilComplete(group, r, body, deadline));
            count++;
        }
        List<RendezvousBenchmark.Answer> all = new ArrayList<>(count);
        long last = 0;
        for (int i = 0; i < count; i++) {
            Future<RendezvousBenchmark.Answer> f = answers.poll(Math.max(1, deadline - System.nanoTime()),
                    TimeUnit.NANOSECONDS);
            if (f == null) {
                throw new TimeoutException((count - i) + " of " + count + " joins unanswered at the deadline");
            }
            RendezvousBenchmark.Answer a = f.get();
            all.add(a);
            last = Math.max(last, a.receivedNanos());
        }
        String fingerprint = session.checkAnswers(group, n, all);
        return "DONE " + all.size() + " " + last + " " + fingerprint;
    }
}
