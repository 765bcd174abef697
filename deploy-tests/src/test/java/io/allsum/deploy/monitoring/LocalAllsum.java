package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The packaged rendezvous server and {@code ranks} ring workers as separate JVMs on loopback, with a random token and
 * HTTP ports the kernel picks (read back from each log). Closing stops them all (SIGTERM, then SIGKILL).
 */
final class LocalAllsum implements AutoCloseable {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SERVER_JAR = ROOT.resolve("rendezvous-server/target/rendezvous-server.jar");
    static final Path WORKER_JAR = ROOT.resolve("worker-agent/target/worker-agent.jar");
    static final List<String> JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Xmx192m",
            "--enable-native-access=ALL-UNNAMED");
    static final Duration START = Duration.ofSeconds(120);
    static final Duration SWEEP = Duration.ofSeconds(150);
    private static final Pattern HTTP_PORT = Pattern.compile("(?:Tomcat|Jetty) started on port (\\d+)");

    final String token = UUID.randomUUID().toString();
    final String group;
    URI server;
    final List<URI> workers = new ArrayList<>();
    private final Path dir;
    private final List<Process> processes = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    private LocalAllsum(Path dir, String group) {
        this.dir = dir;
        this.group = group;
    }

    /** Starts the cluster (the caller has checked that both jars exist); stops what it started if it fails. */
    static LocalAllsum start(Path dir, String group, int ranks) throws IOException, InterruptedException {
        LocalAllsum cluster = new LocalAllsum(dir, group);
        try {
            cluster.boot(ranks);
            return cluster;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private void boot(int ranks) throws IOException, InterruptedException {
        Path serverLog = start("server", SERVER_JAR, "--server.port=0", "--server.address=127.0.0.1",
                "--allsum.security.token=" + token, "--allsum.data-dir=" + dir.resolve("data"));
        server = URI.create("http://127.0.0.1:" + httpPort(serverLog));
        List<Path> logs = new ArrayList<>();
        for (int rank = 0; rank < ranks; rank++) {
            logs.add(start("rank" + rank, WORKER_JAR, "--server.port=0", "--server.address=127.0.0.1",
                    "--allsum.worker.server=" + server, "--allsum.worker.group=" + group,
                    "--allsum.worker.rank=" + rank, "--allsum.worker.world-size=" + ranks,
                    "--allsum.worker.backend=ring", "--allsum.worker.ring-bind-host=127.0.0.1",
                    "--allsum.worker.ring-advertise-host=127.0.0.1", "--allsum.worker.token=" + token,
                    "--allsum.worker.job-poll-wait=2s"));
        }
        for (Path log : logs) {
            URI worker = URI.create("http://127.0.0.1:" + httpPort(log));
            awaitReady(worker, log);
            workers.add(worker);
        }
    }

    static boolean jarsBuilt() {
        return Files.isRegularFile(SERVER_JAR) && Files.isRegularFile(WORKER_JAR);
    }

    /** The server and then every worker. */
    List<URI> targets() {
        List<URI> all = new ArrayList<>(List.of(server));
        all.addAll(workers);
        return all;
    }

    /** The sizes of {@link #sweep()}: 8 B to 64 KiB, doubling. */
    static final int SWEEP_SIZES = 14;

    /** Submits an all-reduce sweep of 8 B to 64 KiB and waits for its final state; the job as the API shows it. */
    JsonNode sweep() throws IOException, InterruptedException {
        return run("{\"minBytes\":8,\"maxBytes\":65536,\"iterations\":5,\"warmupIterations\":1,\"timeoutSeconds\":120}");
    }

    /** A validation of the workers (alone, the pair, a 1 KiB to 64 KiB sweep), for the server's validation gauges. */
    JsonNode validate() throws IOException, InterruptedException {
        return run("{\"minBytes\":1024,\"maxBytes\":65536,\"stepFactor\":8,\"iterations\":5,"
                + "\"warmupIterations\":1,\"timeoutSeconds\":120,\"validation\":{\"soloBytes\":1048576,\"pairBytes\":65536}}");
    }

    private JsonNode run(String spec) throws IOException, InterruptedException {
        URI jobs = server.resolve("/rendezvous/" + group + "/jobs");
        HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(jobs).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(spec)).build(), HttpResponse.BodyHandlers.ofString());
        if (submitted.statusCode() != 201) {
            throw new AssertionError("submission answered " + submitted.statusCode() + ": " + submitted.body());
        }
        URI self = URI.create(jobs + "/" + json.readTree(submitted.body()).path("jobId").asText());
        long end = System.nanoTime() + SWEEP.toNanos();
        JsonNode job = null;
        while (System.nanoTime() < end) {
            job = json.readTree(get(self, token).body());
            if (List.of("succeeded", "failed", "cancelled", "interrupted").contains(job.path("state").asText())) {
                return job;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the job did not end within " + SWEEP + ": " + job);
    }

    HttpResponse<String> get(URI uri, String bearer) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private Path start(String name, Path jar, String... args) throws IOException {
        Path log = dir.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(JVM);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ALLSUM_") || k.equals("RANK") || k.equals("WORLD_SIZE")
                || k.equals("LOCAL_RANK") || k.startsWith("MLX_") || k.startsWith("SLURM_"));
        processes.add(pb.start());
        return log;
    }

    private int httpPort(Path log) throws IOException, InterruptedException {
        long end = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = HTTP_PORT.matcher(Files.exists(log) ? Files.readString(log) : "");
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            Thread.sleep(100);
        }
        throw new AssertionError(log.getFileName() + " served no HTTP within " + START + ":\n" + Files.readString(log));
    }

    private void awaitReady(URI worker, Path log) throws IOException, InterruptedException {
        long end = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < end) {
            try {
                if (get(worker.resolve("/actuator/health/readiness"), null).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError(log.getFileName() + " not ready within " + START + ":\n" + Files.readString(log));
    }

    @Override
    public void close() throws InterruptedException {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
