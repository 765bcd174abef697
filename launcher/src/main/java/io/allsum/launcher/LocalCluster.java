package io.allsum.launcher;

import io.allsum.model.Backend;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * A rendezvous server and its workers as child processes of this launcher, on loopback, with a random token. Each
 * child writes to its own log file. {@link #close()} stops workers first (so they leave the group), then the
 * server: SIGTERM, then a kill after a grace period. It also runs from a shutdown hook, so Ctrl-C cleans up.
 */
public final class LocalCluster implements AutoCloseable {

    /** The worker's variable listing the ranks one JVM hosts (WorkerAgentApplication reads it). */
    static final String LOCAL_RANKS = "ALLSUM_LOCAL_RANKS";

    /** How long children get to exit after SIGTERM before they are killed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(10);

    /** A child process: the server ({@code ranks} empty) or a worker JVM hosting {@code ranks}. */
    public record Child(String name, List<Integer> ranks, Process process, Path log) {

        /** Who this child is, for messages: "the rendezvous server", "rank 2" or "ranks [0, 1, 2, 3]". */
        String who() {
            return ranks.isEmpty() ? "the rendezvous server" : ranks.size() == 1 ? "rank " + ranks.getFirst()
                    : "ranks " + ranks;
        }
    }

    /**
     * @param aot        use (or, first after a build, record) the JVMs' AOT caches where the layout has them
     * @param workerHttp give each worker its HTTP port (actuator, job relay); a plain run talks only to the server
     * @param deadline   the command's: waits for the AOT extraction end there (null: only the extraction's own cap)
     * @param say        hears what a long wait waits for (progress on stderr)
     * @param oneWorkerJvm CPU ranks without an HTTP port share one worker JVM (a context per rank): one JVM's
     *                   start-up instead of one per rank; GPU ranks and workers with a port keep a JVM each
     */
    public record Options(boolean aot, boolean workerHttp, Deadline deadline, Consumer<String> say,
                          boolean oneWorkerJvm) {
        /** AOT caches, a worker HTTP port, a JVM per rank, no deadline but the extraction's cap, silent. */
        public static final Options DEFAULT = new Options(true, true, null, message -> { }, false);

        /**
         * A command's cluster: AOT caches unless {@code ALLSUM_AOT=off} (to measure what they buy, or to rule them
         * out), no worker HTTP port, a JVM per rank; waits end at {@code deadline} and are told to {@code say}.
         */
        public static Options forCommand(Deadline deadline, Consumer<String> say) {
            return forCommand(System.getenv("ALLSUM_AOT"), deadline, say);
        }

        static Options forCommand(String aotVariable, Deadline deadline, Consumer<String> say) {
            return new Options(!"off".equalsIgnoreCase(aotVariable), false, deadline, say, false);
        }

        public Options withAot(boolean on) {
            return new Options(on, workerHttp, deadline, say, oneWorkerJvm);
        }

        public Options withWorkerHttp(boolean on) {
            return new Options(aot, on, deadline, say, oneWorkerJvm);
        }

        public Options withOneWorkerJvm(boolean on) {
            return new Options(aot, workerHttp, deadline, say, on);
        }
    }

    /**
     * How {@link #close(Stop)} stops the children: {@code killAtOnce} kills them at once (a JVM recording an AOT cache
     * still gets SIGTERM and time to write it), else SIGTERM and a kill after {@code grace}; {@code deleteLogs}
     * removes the log folder afterwards.
     */
    public record Stop(boolean killAtOnce, Duration grace, boolean deleteLogs) {

        /**
         * The job is done and reported: the children hold nothing worth a graceful stop (their group dies with the
         * server), and a kill saves the seconds a Spring shutdown takes on a busy machine. The logs stay.
         */
        public static Stop quick() {
            return new Stop(true, Duration.ZERO, false);
        }

        /** SIGTERM, then a kill after {@code grace}; the logs stay. */
        public static Stop graceful(Duration grace) {
            return new Stop(false, grace, false);
        }

        /** The same stop, removing the log folder afterwards when {@code delete} (after a successful run). */
        public Stop deletingLogs(boolean delete) {
            return new Stop(killAtOnce, grace, delete);
        }
    }

    /** How long a JVM that records an AOT cache gets to write it after SIGTERM (seconds of CPU on a busy machine). */
    static final Duration RECORDING_GRACE = Duration.ofMinutes(3);

    /** A JVM writing an AOT cache at exit, and the cache it is for. */
    private record Recording(Child child, AotCache cache, Path file) {
    }

    private final List<Recording> recordings = new ArrayList<>();

    private final String group;
    private final String token;
    private final URI serverUri;
    private final Path logDir;
    private final List<Child> workers = new ArrayList<>();
    private Child server;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(() -> stopAll(Stop.graceful(STOP_GRACE)),
            "allsum-local-cluster-stop");

    private LocalCluster(String group, String token, URI serverUri, Path logDir) {
        this.group = group;
        this.token = token;
        this.serverUri = serverUri;
        this.logDir = logDir;
    }

    /**
     * Starts the server and {@code ranks} workers. {@code devices} gives each rank's GPU index (ALLSUM_DEVICE),
     * or is empty for CPU ranks.
     */
    public static LocalCluster start(ProcessLayout layout, Backend backend, int ranks, List<Integer> devices,
                                     String group) {
        return start(layout, backend, ranks, devices, group, Options.DEFAULT);
    }

    public static LocalCluster start(ProcessLayout layout, Backend backend, int ranks, List<Integer> devices,
                                     String group, Options options) {
        LocalCluster cluster = create(group);
        URI uri = cluster.serverUri;
        try {
            ProcessLayout.Program serverProgram = layout.server();
            // A plain run's workers serve no HTTP port: their flags say so and start them from Spring AOT code.
            ProcessLayout.Program workerProgram = layout.worker(backend, options.workerHttp());
            if (options.aot()) {
                // Both extractions (once per build) at the same time: each is a short JVM of its own.
                Deadline deadline = options.deadline() != null ? options.deadline() : Deadline.in(AotCache.EXTRACT_CAP);
                var serverReady = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> prepare(layout.server(), deadline, options.say()), Thread::startVirtualThread);
                workerProgram = prepare(workerProgram, deadline, options.say());
                try {
                    serverProgram = serverReady.join();
                } catch (java.util.concurrent.CompletionException e) {
                    throw e.getCause() instanceof RuntimeException cause ? cause : e;
                }
            } else {
                serverProgram = serverProgram.withoutAot();
                workerProgram = workerProgram.withoutAot();
            }
            Path serverRecording = recordingFile(serverProgram);
            Path workerRecording = recordingFile(workerProgram);
            cluster.spawnServer(serverProgram, serverRecording);
            boolean shared = options.oneWorkerJvm() && !options.workerHttp() && backend == Backend.RING && ranks > 1;
            List<List<Integer>> processes = new ArrayList<>();
            if (shared) {
                processes.add(IntStream.range(0, ranks).boxed().toList());
            } else {
                IntStream.range(0, ranks).forEach(rank -> processes.add(List.of(rank)));
            }
            for (List<Integer> hosted : processes) {
                int rank = hosted.getFirst();
                Map<String, String> env = new HashMap<>(workerProgram.env());
                env.put("ALLSUM_SERVER", uri.toString());
                env.put("ALLSUM_GROUP", group);
                if (hosted.size() == 1) {
                    env.put("ALLSUM_RANK", Integer.toString(rank));
                } else {
                    env.put(LOCAL_RANKS, String.join(",", hosted.stream().map(String::valueOf).toList()));
                }
                env.put("ALLSUM_WORLD_SIZE", Integer.toString(ranks));
                env.put("ALLSUM_BACKEND", backend.wireName());
                env.put("ALLSUM_TOKEN", cluster.token);
                // Workers serve actuator endpoints; a random port keeps them from colliding with each other.
                env.put("SERVER_PORT", "0");
                // NVLink SHARP stays off: it needs multicast objects that shared hosts do not grant.
                env.put("NCCL_NVLS_ENABLE", "0");
                if (!devices.isEmpty()) {
                    env.put("ALLSUM_DEVICE", Integer.toString(devices.get(rank)));
                }
                // One worker JVM records the workers' cache; the others run from the extracted jar without one.
                Path recording = rank == 0 ? workerRecording : null;
                List<String> command = workerProgram.command(workerRecording != null && recording == null
                        ? List.of() : aotFlags(workerProgram, recording));
                String name = hosted.size() == 1 ? "worker-" + rank
                        : "workers-" + rank + "-" + hosted.getLast();
                Child worker = cluster.spawn(name, hosted, command, env);
                cluster.workers.add(worker);
                if (recording != null) {
                    cluster.recordings.add(new Recording(worker, workerProgram.aot(), recording));
                }
            }
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /**
     * The server alone, for {@code allsum run}, whose ranks are the user's program: its AOT cache is used, or
     * recorded by the first run after a build, as in {@link #start}.
     */
    public static LocalCluster startServer(ProcessLayout layout, String group, Options options) {
        LocalCluster cluster = create(group);
        try {
            ProcessLayout.Program program = options.aot() ? prepare(layout.server(), options.deadline() != null
                    ? options.deadline() : Deadline.in(AotCache.EXTRACT_CAP), options.say())
                    : layout.server().withoutAot();
            cluster.spawnServer(program, recordingFile(program));
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    /** A cluster with its log folder, free port and token, and the shutdown hook that stops what it starts. */
    private static LocalCluster create(String group) {
        Path logDir;
        try {
            logDir = Files.createTempDirectory("allsum-");
        } catch (IOException e) {
            throw new LauncherException("cannot create a log directory: " + e.getMessage(), e);
        }
        URI uri = URI.create("http://127.0.0.1:" + freePort());
        LocalCluster cluster = new LocalCluster(group, randomToken(), uri, logDir);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        return cluster;
    }

    /** Starts the server on the cluster's port with its token; {@code recording}: where it records its AOT cache. */
    private void spawnServer(ProcessLayout.Program program, Path recording) {
        List<String> command = program.command(aotFlags(program, recording));
        command.add("--server.port=" + serverUri.getPort());
        command.add("--server.address=127.0.0.1");
        // The job history of a one-job server lives with its logs, not in ./data of the caller's directory (where
        // a second run at the same time would find the database in use).
        command.add("--allsum.data-dir=" + logDir.resolve("data"));
        Map<String, String> env = new HashMap<>(program.env());
        env.put("ALLSUM_TOKEN", token);
        server = spawn("server", List.of(), command, env);
        if (recording != null) {
            recordings.add(new Recording(server, program.aot(), recording));
        }
    }

    /** The program as this run starts it: from the extracted jar when extraction worked, else the fat jar. */
    private static ProcessLayout.Program prepare(ProcessLayout.Program program, Deadline deadline,
                                                 Consumer<String> say) {
        if (program.aot() == null) {
            return program;
        }
        Path java = Path.of(program.jvm().getFirst());
        return program.aot().extract(java, deadline, say) ? program.extracted() : program.withoutAot();
    }

    /** Where this run records the program's cache, or null when the cache is ready (or there is none). */
    private static Path recordingFile(ProcessLayout.Program program) {
        return program.aot() == null || program.aot().ready() ? null : program.aot().recordingFile();
    }

    private static List<String> aotFlags(ProcessLayout.Program program, Path recording) {
        return program.aot() == null ? List.of() : program.aot().flags(recording);
    }

    /** Whether stopping will take longer because JVMs write AOT caches for the next runs. */
    public boolean recordsAotCaches() {
        return !recordings.isEmpty();
    }

    private Child spawn(String name, List<Integer> ranks, List<String> command, Map<String, String> env) {
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        try {
            return new Child(name, ranks, pb.start(), log);
        } catch (IOException e) {
            throw new LauncherException("cannot start " + name + " (" + command.getFirst() + "): " + e.getMessage(), e);
        }
    }

    /** Throws naming the first child that exited, with its exit code, log and the log's last line. */
    public void checkAlive() {
        List<Child> all = new ArrayList<>();
        all.add(server);
        all.addAll(workers);
        for (Child c : all) {
            if (c != null && !c.process().isAlive()) {
                throw new LauncherException(c.who() + " (pid " + c.process().pid() + ") exited with code "
                        + c.process().exitValue() + lastLogLine(c.log()) + "; log: " + c.log());
            }
        }
    }

    /** The root cause ("Caused by: ...") of a logged stack trace, else the last line that is not a frame. */
    static String lastLogLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            String pick = null;
            for (String raw : lines) {
                String line = raw.strip();
                if (line.startsWith("Caused by: ")) {
                    pick = line.substring("Caused by: ".length());
                }
            }
            for (int i = lines.size() - 1; pick == null && i >= 0; i--) {
                String line = lines.get(i).strip();
                if (!line.isEmpty() && !line.startsWith("at ") && !line.matches("\\.\\.\\. \\d+ (common frames|more).*")) {
                    pick = line;
                }
            }
            if (pick != null) {
                return ": " + (pick.length() > 200 ? pick.substring(0, 200) + "..." : pick);
            }
        } catch (IOException | UncheckedIOException e) {
            // The log is a courtesy in the message; its absence must not hide the real error.
        }
        return "";
    }

    public URI serverUri() {
        return serverUri;
    }

    public String token() {
        return token;
    }

    public String group() {
        return group;
    }

    public Path logDir() {
        return logDir;
    }

    /** The worker JVMs: one per rank, or one for all ranks ({@link Options#oneWorkerJvm}). */
    public List<Child> workers() {
        return List.copyOf(workers);
    }

    public Child server() {
        return server;
    }

    /** Blocks until the server exits (used by --keep; Ctrl-C ends it through the shutdown hook). */
    public void awaitServerExit() throws InterruptedException {
        server.process().waitFor();
    }

    /** Stops everything after a failure: SIGTERM, {@link #STOP_GRACE}, the logs kept. */
    @Override
    public void close() {
        close(Stop.graceful(STOP_GRACE));
    }

    public void close(Stop how) {
        stopAll(how);
        if (how.deleteLogs()) {
            deleteRecursively(logDir);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook is running or ran.
        }
    }

    private void stopAll(Stop how) {
        boolean quick = how.killAtOnce();
        Duration grace = how.grace();
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (System.getenv("ALLSUM_AOT_RECORD") != null) {
            // A distribution's training run (packaging/dist/build.sh): every child writes its AOT cache at exit.
            stop(workers.stream().map(Child::process).toList(), RECORDING_GRACE);
            if (server != null) {
                stop(List.of(server.process()), RECORDING_GRACE);
            }
            return;
        }
        // Only a run whose job succeeded records a cache worth keeping (one cut short would cover start-up only).
        List<Process> recorders = quick ? recordings.stream().map(r -> r.child().process()).toList() : List.of();
        List<Process> others = workers.stream().map(Child::process).filter(p -> !recorders.contains(p)).toList();
        stop(others, quick ? Duration.ZERO : grace);
        stop(workers.stream().map(Child::process).filter(recorders::contains).toList(), RECORDING_GRACE);
        if (server != null) {
            boolean recording = recorders.contains(server.process());
            stop(List.of(server.process()), recording ? RECORDING_GRACE : quick ? Duration.ZERO : grace);
        }
        for (Recording r : recordings) {
            if (!quick || r.child().process().isAlive() || r.child().process().exitValue() == 137) {
                // Killed while writing: what it left may be partial.
                deleteQuietly(r.file());
            } else {
                r.cache().adopt(r.file());
            }
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
            Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".config"));
        } catch (IOException e) {
            // A leftover recording is overwritten or ignored by the next run.
        }
    }

    /**
     * SIGTERM to each process and its descendants, then wait for all together up to {@code grace}, then SIGKILL what
     * is left and wait (bounded) for the kernel to reap it.
     */
    static void stop(List<Process> processes, Duration grace) {
        List<ProcessHandle> handles = new ArrayList<>();
        for (Process p : processes) {
            // A distribution start script may have children of its own: stop the whole tree.
            p.descendants().forEach(handles::add);
            handles.add(p.toHandle());
        }
        if (grace.isZero()) {
            handles.forEach(ProcessHandle::destroyForcibly);
        } else {
            handles.forEach(ProcessHandle::destroy);
        }
        Deadline deadline = Deadline.in(grace);
        List<ProcessHandle> stubborn = new ArrayList<>();
        for (ProcessHandle h : handles) {
            if (!awaitExit(h, deadline)) {
                stubborn.add(h);
            }
        }
        stubborn.forEach(ProcessHandle::destroyForcibly);
        Deadline killed = Deadline.in(Duration.ofSeconds(5));
        stubborn.forEach(h -> awaitExit(h, killed));
        // A handle's onExit can complete before the Process's own reaper has recorded the exit: wait for that too,
        // so that callers (and isAlive()) see the process gone.
        for (Process p : processes) {
            try {
                p.waitFor(Math.max(0, killed.remaining().toMillis()), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static boolean awaitExit(ProcessHandle h, Deadline deadline) {
        try {
            h.onExit().get(deadline.remaining().toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            return !h.isAlive();
        }
    }

    static void deleteRecursively(Path dir) {
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException e) {
                    // Best effort: a leftover log file is not worth failing a successful run for.
                }
            });
        } catch (IOException | UncheckedIOException e) {
            // Same: the directory may be gone already.
        }
    }

    static int freePort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new LauncherException("cannot find a free port on loopback: " + e.getMessage(), e);
        }
    }

    static String randomToken() {
        byte[] bytes = new byte[24];
        new SecureRandom().nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
