package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real Prometheus (the {@code prometheus} binary on PATH; Debian's package has it) running
 * docker/prometheus/prometheus.yml with its targets pointed at a {@link LocalAllsum} and its token file written
 * here; scrapes every second. Absent binary: {@link #binary()} is empty and the caller skips.
 */
final class LocalPrometheus implements AutoCloseable {

    private static final Duration START = Duration.ofSeconds(60);

    final URI uri;
    final Path config;
    private final Process process;
    private final Path log;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    private LocalPrometheus(URI uri, Path config, Process process, Path log) {
        this.uri = uri;
        this.config = config;
        this.process = process;
        this.log = log;
    }

    static Optional<Path> binary(String name) {
        return Stream.of(System.getenv().getOrDefault("PATH", "/usr/bin").split(":"))
                .map(d -> Path.of(d, name)).filter(Files::isExecutable).findFirst();
    }

    static Optional<Path> binary() {
        return binary("prometheus");
    }

    /** The compose config, its three jobs aimed at {@code cluster}: server, CPU workers, and no GPU workers here. */
    @SuppressWarnings("unchecked")
    static Path configFor(Path dir, LocalAllsum cluster) throws IOException {
        Path tokenFile = dir.resolve("prometheus-token");
        Files.writeString(tokenFile, cluster.token);
        Map<String, Object> config;
        try (var in = Files.newInputStream(MonitoringConfigTest.DOCKER.resolve("prometheus/prometheus.yml"))) {
            config = new Yaml().load(in);
        }
        // rule files are named relative to the shipped config, which this copy leaves behind
        config.computeIfPresent("rule_files", (key, files) -> ((List<String>) files).stream()
                .map(f -> MonitoringConfigTest.DOCKER.resolve("prometheus").resolve(f).toAbsolutePath().toString())
                .toList());
        Map<String, Object> global = (Map<String, Object>) config.get("global");
        global.put("scrape_interval", "1s");
        global.put("scrape_timeout", "1s");
        global.put("evaluation_interval", "1s");
        List<Map<String, Object>> jobs = (List<Map<String, Object>>) config.get("scrape_configs");
        for (Map<String, Object> job : jobs) {
            ((Map<String, Object>) job.get("authorization")).put("credentials_file", tokenFile.toString());
            List<String> targets = switch ((String) job.get("job_name")) {
                case "allsum-server" -> List.of(cluster.server.getAuthority());
                case "allsum-workers-cpu" -> cluster.workers.stream().map(URI::getAuthority).toList();
                default -> List.of();
            };
            job.put("static_configs", List.of(Map.of("targets", targets)));
        }
        jobs.removeIf(job -> ((List<Map<String, List<String>>>) job.get("static_configs")).getFirst().get("targets")
                .isEmpty());
        Path file = dir.resolve("prometheus.yml");
        Files.writeString(file, new Yaml().dump(config));
        return file;
    }

    static LocalPrometheus start(Path binary, Path dir, Path config) throws IOException, InterruptedException {
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(binary.toString(), "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("prometheus-data"), "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        LocalPrometheus prometheus = new LocalPrometheus(URI.create("http://127.0.0.1:" + port), config, process, log);
        try {
            prometheus.awaitReady();
            return prometheus;
        } catch (IOException | InterruptedException | RuntimeException | Error e) {
            prometheus.close();
            throw e;
        }
    }

    private void awaitReady() throws IOException, InterruptedException {
        long end = System.nanoTime() + START.toNanos();
        while (System.nanoTime() < end) {
            if (!process.isAlive()) {
                throw new AssertionError("prometheus exited with " + process.exitValue() + ":\n" + Files.readString(log));
            }
            try {
                if (get("/-/ready").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("prometheus not ready within " + START + ":\n" + Files.readString(log));
    }

    /** Waits until every target is up (scraped with the token); fails with the targets' last errors. */
    void awaitTargetsUp(int count) throws IOException, InterruptedException {
        long end = System.nanoTime() + START.toNanos();
        JsonNode active = null;
        while (System.nanoTime() < end) {
            active = json.readTree(get("/api/v1/targets?state=active").body()).path("data").path("activeTargets");
            int up = 0;
            for (JsonNode t : active) {
                up += "up".equals(t.path("health").asText()) ? 1 : 0;
            }
            if (active.size() == count && up == count) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("not all " + count + " targets up within " + START + ": " + active);
    }

    /** /api/v1/query at now: the whole answer (status, data.result or error). */
    JsonNode query(String promql) throws IOException, InterruptedException {
        return json.readTree(get("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8)).body());
    }

    /** Waits until {@code promql} returns at least one series. */
    void awaitSeries(String promql, Duration deadline) throws IOException, InterruptedException {
        awaitSeries(promql, 1, deadline);
    }

    /** Until {@code promql} answers at least {@code atLeast} series (a rate needs two scrapes of each one). */
    void awaitSeries(String promql, int atLeast, Duration deadline) throws IOException, InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        int seen = 0;
        while (System.nanoTime() < end) {
            seen = query(promql).path("data").path("result").size();
            if (seen >= atLeast) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError(seen + " series, not " + atLeast + ", for " + promql + " within " + deadline);
    }

    /** /api/v1/series for a selector: the label sets of the matching series. */
    List<JsonNode> series(String selector) throws IOException, InterruptedException {
        List<JsonNode> all = new ArrayList<>();
        json.readTree(get("/api/v1/series?match[]=" + URLEncoder.encode(selector, StandardCharsets.UTF_8)).body())
                .path("data").forEach(all::add);
        return all;
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(URI.create(uri + pathAndQuery)).timeout(Duration.ofSeconds(10))
                .GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
