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

/**
 * A rendezvous server and its workers as child processes of this launcher, on loopback, with a random token. Each
 * child writes to its own log file. {@link #close()} stops workers first (so they leave the group), then the
 * server: SIGTERM, then a kill after a grace period. It also runs from a shutdown hook, so Ctrl-C cleans up.
 */
public final class LocalCluster implements AutoCloseable {

    /** How long children get to exit after SIGTERM before they are killed. */
    static final Duration STOP_GRACE = Duration.ofSeconds(10);

    public record Child(String name, Integer rank, Process process, Path log) {
    }

    private final String group;
    private final String token;
    private final URI serverUri;
    private final Path logDir;
    private final List<Child> workers = new ArrayList<>();
    private Child server;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Thread shutdownHook = new Thread(this::stopAll, "allsum-local-cluster-stop");

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
        Path logDir;
        try {
            logDir = Files.createTempDirectory("allsum-");
        } catch (IOException e) {
            throw new LauncherException("cannot create a log directory: " + e.getMessage(), e);
        }
        int port = freePort();
        URI uri = URI.create("http://127.0.0.1:" + port);
        LocalCluster cluster = new LocalCluster(group, randomToken(), uri, logDir);
        Runtime.getRuntime().addShutdownHook(cluster.shutdownHook);
        try {
            List<String> serverCmd = new ArrayList<>(layout.serverCommand());
            serverCmd.add("--server.port=" + port);
            serverCmd.add("--server.address=127.0.0.1");
            Map<String, String> serverEnv = new HashMap<>();
            serverEnv.put("ALLSUM_TOKEN", cluster.token);
            cluster.server = cluster.spawn("server", null, serverCmd, serverEnv);
            for (int rank = 0; rank < ranks; rank++) {
                Map<String, String> env = new HashMap<>();
                env.put("ALLSUM_SERVER", uri.toString());
                env.put("ALLSUM_GROUP", group);
                env.put("ALLSUM_RANK", Integer.toString(rank));
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
                cluster.workers.add(cluster.spawn("worker-" + rank, rank, new ArrayList<>(layout.workerCommand()), env));
            }
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
        return cluster;
    }

    private Child spawn(String name, Integer rank, List<String> command, Map<String, String> env) {
        Path log = logDir.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        try {
            return new Child(name, rank, pb.start(), log);
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
                String who = c.rank() == null ? "the rendezvous server" : "rank " + c.rank();
                throw new LauncherException(who + " (pid " + c.process().pid() + ") exited with code "
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

    @Override
    public void close() {
        close(false);
    }

    /** Stops everything; {@code deleteLogs} removes the log directory too (after a successful run). */
    public void close(boolean deleteLogs) {
        stopAll();
        if (deleteLogs) {
            deleteRecursively(logDir);
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook is running or ran.
        }
    }

    private void stopAll() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stop(workers.stream().map(Child::process).toList(), STOP_GRACE);
        if (server != null) {
            stop(List.of(server.process()), STOP_GRACE);
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
        handles.forEach(ProcessHandle::destroy);
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
