package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The board against what allsum really exports: the packaged server and two ring workers (with a token, on ports the
 * kernel picks) run a small sweep, then /actuator/prometheus of all three is scraped as Prometheus would, and every
 * metric name and label that any panel or variable query of docker/grafana/allsum-dashboard.json reads must be there.
 */
class DashboardMetricsIT {

    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    static final Path SERVER_JAR = ROOT.resolve("rendezvous-server/target/rendezvous-server.jar");
    static final Path WORKER_JAR = ROOT.resolve("worker-agent/target/worker-agent.jar");
    static final List<String> JVM = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xss512k", "-Xmx192m",
            "--enable-native-access=ALL-UNNAMED");
    static final Duration START = Duration.ofSeconds(120);
    static final Pattern TOMCAT_PORT = Pattern.compile("Tomcat started on port (\\d+)");
    static final String GROUP = "board";

    @TempDir
    Path dir;

    private final String token = UUID.randomUUID().toString();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final List<Process> processes = new ArrayList<>();

    @AfterEach
    void stop() throws InterruptedException {
        processes.forEach(Process::destroy);
        for (Process p : processes) {
            if (!p.waitFor(15, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void everyMetricAndLabelTheBoardQueriesIsInTheScrapesOfTheServerAndTheWorkers() throws Exception {
        for (Path jar : List.of(SERVER_JAR, WORKER_JAR)) {
            assumeTrue(Files.isRegularFile(jar), jar + " is absent: ./mvnw -pl deploy-tests -am verify packages it");
        }
        Path serverLog = dir.resolve("server.log");
        start(serverLog, SERVER_JAR, "--server.port=0", "--server.address=127.0.0.1",
                "--allsum.security.token=" + token, "--allsum.data-dir=" + dir.resolve("data"));
        URI server = URI.create("http://127.0.0.1:" + httpPort(serverLog));
        List<URI> workers = new ArrayList<>();
        List<Path> workerLogs = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            Path log = dir.resolve("rank" + rank + ".log");
            workerLogs.add(log);
            start(log, WORKER_JAR, "--server.port=0", "--server.address=127.0.0.1",
                    "--allsum.worker.server=" + server, "--allsum.worker.group=" + GROUP,
                    "--allsum.worker.rank=" + rank, "--allsum.worker.world-size=2", "--allsum.worker.backend=ring",
                    "--allsum.worker.ring-bind-host=127.0.0.1", "--allsum.worker.ring-advertise-host=127.0.0.1",
                    "--allsum.worker.token=" + token, "--allsum.worker.job-poll-wait=2s");
        }
        for (Path log : workerLogs) {
            URI worker = URI.create("http://127.0.0.1:" + httpPort(log));
            awaitReady(worker, log);
            workers.add(worker);
        }

        JsonNode job = runSweep(server);
        assertThat(job.path("state").asText()).as("the sweep: %s", job).isEqualTo("succeeded");

        List<String> expositions = new ArrayList<>();
        for (URI target : concat(server, workers)) {
            assertThat(get(target.resolve("/actuator/prometheus"), null).statusCode())
                    .as("%s without the token (why prometheus.yml sends one)", target).isEqualTo(401);
            HttpResponse<String> scrape = get(target.resolve("/actuator/prometheus"), token);
            assertThat(scrape.statusCode()).as(target.toString()).isEqualTo(200);
            expositions.add(scrape.body());
        }
        PrometheusScrape scrape = PrometheusScrape.of(expositions.toArray(String[]::new));

        List<String> problems = new ArrayList<>();
        for (GrafanaDashboard.Query q : GrafanaDashboard.load().queries()) {
            scrape.problems(q.reads()).forEach(p -> problems.add(q.where() + ": " + p));
        }
        assertThat(problems).as("names and labels the board reads that no scrape has").isEmpty();
        // The variables have values to offer: the workers' group, and the sweep's sizes as power-of-two buckets.
        assertThat(scrape.labelValues("allsum_worker_ready", "group")).containsExactly(GROUP);
        assertThat(scrape.labelValues("allsum_collective_seconds_count", "size")).contains("8B", "1KiB", "64KiB");
        assertThat(scrape.labelValues("allsum_collective_seconds_count", "op")).containsExactly("all_reduce");
        assertThat(scrape.labelValues("allsum_jobs_duration_seconds_count", "state")).contains("succeeded");
    }

    private JsonNode runSweep(URI server) throws IOException, InterruptedException {
        URI jobs = server.resolve("/rendezvous/" + GROUP + "/jobs");
        HttpResponse<String> submitted = http.send(HttpRequest.newBuilder(jobs).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "{\"minBytes\":8,\"maxBytes\":65536,\"iterations\":5,\"warmupIterations\":1,\"timeoutSeconds\":120}"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(submitted.statusCode()).as(submitted.body()).isEqualTo(201);
        URI self = jobs.resolve(jobs.getPath() + "/" + json.readTree(submitted.body()).path("jobId").asText());
        long end = System.nanoTime() + Duration.ofSeconds(150).toNanos();
        JsonNode job = null;
        while (System.nanoTime() < end) {
            job = json.readTree(get(self, token).body());
            if (List.of("succeeded", "failed", "cancelled", "interrupted").contains(job.path("state").asText())) {
                return job;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the sweep did not end within 150 s: " + job);
    }

    private void start(Path log, Path jar, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(JVM);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ALLSUM_") || k.equals("RANK") || k.equals("WORLD_SIZE")
                || k.equals("LOCAL_RANK") || k.startsWith("MLX_") || k.startsWith("SLURM_"));
        processes.add(pb.start());
    }

    private int httpPort(Path log) throws IOException, InterruptedException {
        long end = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = TOMCAT_PORT.matcher(Files.exists(log) ? Files.readString(log) : "");
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

    private HttpResponse<String> get(URI uri, String bearer) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static List<URI> concat(URI first, List<URI> rest) {
        List<URI> all = new ArrayList<>(List.of(first));
        all.addAll(rest);
        return all;
    }
}
