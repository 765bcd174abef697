package io.allsum.worker.it;

import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.model.jobs.Job;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * A real rendezvous server (its packaged jar) and real worker JVMs with the ring backend, all on loopback, with
 * short heartbeats and deadlines so that failures show quickly. Logs go to {@code target/it-logs/<test>/}.
 */
final class ItCluster implements AutoCloseable {

    static final Path SERVER_JAR = Path.of("..", "rendezvous-server", "target", "rendezvous-server.jar");
    static final Duration START_DEADLINE = Duration.ofSeconds(90);
    /** Between two reads while awaiting a job or a group state: fine enough for the re-form times measured. */
    static final Duration POLL = Duration.ofMillis(25);

    /** Worker timing for tests: failures are noticed in about a second, yet a busy 2-core machine is tolerated. */
    static final List<String> WORKER_TIMING = List.of(
            "--allsum.worker.heartbeat-interval=300ms",
            "--allsum.worker.collective-deadline=20s",
            "--allsum.worker.join-deadline=60s",
            "--allsum.worker.job-poll-wait=2s",
            "--allsum.worker.max-restarts=5");

    /** {@link #WORKER_TIMING} with the settings named in {@code overrides} ("--allsum.worker.x=v") replaced. */
    static List<String> workerTiming(String... overrides) {
        List<String> timing = new ArrayList<>(WORKER_TIMING);
        for (String override : overrides) {
            String key = override.substring(0, override.indexOf('=') + 1);
            timing.removeIf(setting -> setting.startsWith(key));
            timing.add(override);
        }
        return List.copyOf(timing);
    }

    private final Path logDir;
    private final String token;
    private final List<String> workerTiming;
    private volatile JvmProcess server;
    private final URI serverUri;
    private final AllsumClient client;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<String, Worker> workers = new ConcurrentHashMap<>();

    /** A worker process and the port it serves HTTP on. */
    record Worker(String group, int rank, JvmProcess process, int port) {
        URI uri(String path) {
            return URI.create("http://127.0.0.1:" + port + path);
        }
    }

    private ItCluster(Path logDir, JvmProcess server, URI serverUri, String token, List<String> workerTiming) {
        this.logDir = logDir;
        this.token = token;
        this.workerTiming = workerTiming;
        this.server = server;
        this.serverUri = serverUri;
        this.client = HttpAllsumClient.builder(serverUri).token(token).requestTimeout(Duration.ofSeconds(10)).build();
    }

    /** Starts the server jar, or skips the test (with the reason) when the jar was not built. */
    static ItCluster start(String testName) throws IOException, InterruptedException {
        return start(testName, null, WORKER_TIMING);
    }

    /** With a bearer token on server and workers (null: none), and the workers' timing settings. */
    static ItCluster start(String testName, String token, List<String> workerTiming) throws IOException,
            InterruptedException {
        Assumptions.assumeTrue(Files.isRegularFile(SERVER_JAR), "rendezvous server jar " + SERVER_JAR.toAbsolutePath()
                + " is absent: build it first (./mvnw -pl rendezvous-server,worker-agent -am verify)");
        Path logDir = Path.of("target", "it-logs", testName);
        // Heartbeats every 300 ms against a 6 s timeout: a busy 2-core machine never fails a generation by accident.
        JvmProcess server = startServer(logDir, "server", 0, token);
        int port = server.awaitHttpPort(START_DEADLINE);
        return new ItCluster(logDir, server, URI.create("http://127.0.0.1:" + port), token, workerTiming);
    }

    private static JvmProcess startServer(Path logDir, String name, int port, String token) throws IOException {
        return JvmProcess.start(name, logDir, List.of(), AotLaunch.SERVER.with(
                "--allsum.security.token=" + (token == null ? "" : token),
                "--server.port=" + port,
                "--server.address=127.0.0.1",
                "--allsum.rendezvous.heartbeat-timeout=6s",
                "--allsum.rendezvous.join-timeout=60s",
                "--allsum.data-dir=" + logDir.resolve("data").toAbsolutePath()));
    }

    /** Kills the server (SIGKILL) and starts a new one on the same port; the workers keep running. */
    void restartServer(int incarnation) throws IOException, InterruptedException {
        server.kill();
        server.close();
        server = startServer(logDir, "server-" + incarnation, serverUri.getPort(), token);
        server.awaitHttpPort(START_DEADLINE);
    }

    AllsumClient client() {
        return client;
    }

    URI serverUri() {
        return serverUri;
    }

    /** Starts the workers of a group in parallel and waits until each is ready (communicator built). */
    List<Worker> startGroup(String group, int worldSize) throws IOException, InterruptedException {
        List<JvmProcess> processes = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            processes.add(launchWorker(group, rank, worldSize, "-1"));
        }
        List<Worker> started = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            started.add(register(group, rank, processes.get(rank)));
        }
        for (Worker w : started) {
            awaitReady(w);
        }
        return started;
    }

    /** Starts one more incarnation of {@code rank} (after it was killed) and waits until its HTTP is up. */
    Worker restartWorker(String group, int rank, int worldSize, int incarnation) throws IOException,
            InterruptedException {
        return register(group, rank, launchWorker(group, rank, worldSize, "-" + incarnation));
    }

    Worker worker(String group, int rank) {
        return workers.get(group + "/" + rank);
    }

    private JvmProcess launchWorker(String group, int rank, int worldSize, String suffix) throws IOException {
        List<String> args = new ArrayList<>(AotLaunch.WORKER.command());
        args.addAll(List.of(
                "--server.address=127.0.0.1",
                "--allsum.worker.server=" + serverUri,
                "--allsum.worker.group=" + group,
                "--allsum.worker.rank=" + rank,
                "--allsum.worker.world-size=" + worldSize,
                "--allsum.worker.backend=ring",
                "--allsum.worker.ring-bind-host=127.0.0.1",
                "--allsum.worker.ring-advertise-host=127.0.0.1"));
        args.addAll(workerTiming);
        if (token != null) {
            args.add("--allsum.worker.token=" + token);
        }
        return JvmProcess.start(group + "-rank" + rank + suffix, logDir, List.of(), args);
    }

    private Worker register(String group, int rank, JvmProcess process) throws InterruptedException {
        Worker worker = new Worker(group, rank, process, process.awaitHttpPort(START_DEADLINE));
        workers.put(group + "/" + rank, worker);
        return worker;
    }

    /** Waits until the worker's readiness group is UP, i.e. its communicator is READY. */
    void awaitReady(Worker w) throws InterruptedException {
        long end = System.nanoTime() + START_DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            if (!w.process().process().isAlive()) {
                throw new AssertionError(w.process().name() + " exited:\n" + w.process().tail());
            }
            HttpResponse<String> readiness = get(w.uri("/actuator/health/readiness"));
            if (readiness != null && readiness.statusCode() == 200) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError(w.process().name() + " not ready within " + START_DEADLINE + ":\n"
                + w.process().tail());
    }

    /** Waits until each worker of the group is ready and the group's generation is complete; that status. */
    GroupStatus awaitGroupReady(String group, Duration deadline) throws InterruptedException {
        for (Worker w : workers.values()) {
            if (w.group().equals(group)) {
                awaitReady(w);
            }
        }
        return awaitStatus(group, s -> s.state() == GenerationState.COMPLETE, deadline);
    }

    /** Polls the job until {@code condition} holds (the server may be restarting meanwhile). */
    Job awaitJob(String group, String jobId, Predicate<Job> condition, Duration deadline) throws InterruptedException {
        return Polling.await("job " + jobId, deadline, POLL, () -> client().job(group, jobId), condition);
    }

    /** Polls the group's status until {@code condition} holds (the group may not exist yet). */
    GroupStatus awaitStatus(String group, Predicate<GroupStatus> condition, Duration deadline)
            throws InterruptedException {
        return Polling.await("group " + group, deadline, POLL, () -> client().status(group), condition);
    }

    /** The answer, or null when the connection failed (a worker still starting, or just killed). */
    HttpResponse<String> get(URI uri) throws InterruptedException {
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build());
    }

    HttpResponse<String> postJson(URI uri, String json) throws InterruptedException {
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private HttpResponse<String> send(HttpRequest request) throws InterruptedException {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        }
    }

    /** Stops the group's workers gracefully (they leave the group). */
    void stopGroup(String group) throws InterruptedException {
        for (var it = workers.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (e.getKey().startsWith(group + "/")) {
                e.getValue().process().close();
                it.remove();
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        for (Worker w : workers.values()) {
            w.process().close();
        }
        workers.clear();
        client.close();
        http.close();
        server.close();
    }
}
