package io.allsum.deploy.monitoring;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

/**
 * docker/prometheus/prometheus.yml, docker/grafana/provisioning and the compose profile {@code monitoring}, read
 * together: Prometheus scrapes every allsum service the compose file defines, on the port its image serves, with the
 * token file the compose service writes; Grafana gets that Prometheus and the board. No image is pulled.
 */
class MonitoringConfigTest {

    static final Path DOCKER = Path.of("..", "docker");
    static final String SCRAPE_PATH = "/actuator/prometheus";

    private final Map<String, Object> compose = yaml(DOCKER.resolve("compose.yaml"));
    private final Map<String, Object> services = map(compose.get("services"));
    private final Map<String, Object> prometheus = yaml(DOCKER.resolve("prometheus/prometheus.yml"));

    MonitoringConfigTest() throws IOException {
    }

    @Test
    void everyScrapeJobReadsTheActuatorWithTheTokenFileThatTheComposeServiceWrites() {
        Map<String, Object> service = map(services.get("prometheus"));
        String entrypoint = String.join(" ", strings(service.get("entrypoint")));
        Matcher written = Pattern.compile("> (\\S+) && exec /bin/prometheus").matcher(entrypoint);
        assertThat(written.find()).as("the entrypoint writes the token file: %s", entrypoint).isTrue();
        String tokenFile = written.group(1);
        assertThat(entrypoint).contains("$$ALLSUM_TOKEN", "--config.file=/etc/prometheus/prometheus.yml");
        assertThat(strings(service.get("tmpfs"))).as("the token file lies on a tmpfs")
                .anyMatch(dir -> tokenFile.startsWith(dir + "/"));
        assertThat(map(service.get("environment")).get("ALLSUM_TOKEN")).asString().startsWith("${ALLSUM_TOKEN:?");

        List<Map<String, Object>> jobs = scrapeConfigs();
        assertThat(jobs).extracting(j -> j.get("job_name")).doesNotHaveDuplicates()
                .containsExactlyInAnyOrder("allsum-server", "allsum-workers-cpu", "allsum-workers-gpu");
        assertThat(jobs).allSatisfy(job -> {
            assertThat(job.get("metrics_path")).isEqualTo(SCRAPE_PATH);
            assertThat(map(job.get("authorization"))).containsEntry("type", "Bearer")
                    .containsEntry("credentials_file", tokenFile);
        });
    }

    @Test
    void theServerAndTheCpuWorkersAreScrapedByServiceNameOnTheirImagesPorts() throws IOException {
        String serverPort = imagePort("server.Dockerfile");
        String workerPort = imagePort("worker.Dockerfile");
        assertThat(targets("allsum-server")).containsExactly("server:" + serverPort);
        assertThat(services).containsKey("server");

        List<String> cpuWorkers = new ArrayList<>();
        services.forEach((name, s) -> {
            if (strings(map(s).getOrDefault("profiles", List.of())).contains("cpu")) {
                cpuWorkers.add(map(s).get("hostname") + ":" + workerPort);
            }
        });
        assertThat(cpuWorkers).isNotEmpty();
        assertThat(targets("allsum-workers-cpu")).containsExactlyInAnyOrderElementsOf(cpuWorkers);
    }

    @Test
    void theGpuWorkersOnTheHostNetworkAreScrapedOnEveryPortAProfileGivesThem() {
        Pattern port = Pattern.compile("--server\\.port=(\\d+)");
        List<String> gpuPorts = new ArrayList<>();
        services.forEach((name, s) -> {
            for (String arg : strings(map(s).getOrDefault("command", List.of()))) {
                Matcher m = port.matcher(arg);
                if (name.startsWith("gpu") && m.matches()) {
                    assertThat(map(s).get("network_mode")).as(name).isEqualTo("host");
                    gpuPorts.add("host.docker.internal:" + m.group(1));
                }
            }
        });
        assertThat(gpuPorts).hasSizeGreaterThanOrEqualTo(8);
        assertThat(targets("allsum-workers-gpu")).containsExactlyInAnyOrderElementsOf(gpuPorts.stream().distinct().toList());
        assertThat(strings(map(services.get("prometheus")).get("extra_hosts")))
                .contains("host.docker.internal:host-gateway");
    }

    @Test
    void prometheusAndGrafanaAreOptionalPinnedAndMountFilesThatExist() {
        for (String name : List.of("prometheus", "grafana")) {
            Map<String, Object> service = map(services.get(name));
            assertThat(strings(service.get("profiles"))).as(name).containsExactly("monitoring");
            assertThat(service.get("image")).asString().as(name)
                    .matches("(prom/prometheus:v|grafana/grafana:)\\d+\\.\\d+\\.\\d+");
            for (String volume : strings(service.get("volumes"))) {
                String source = volume.split(":")[0];
                if (source.startsWith("./")) {
                    assertThat(DOCKER.resolve(source)).as("%s mounts %s", name, source).exists();
                } else {
                    assertThat(map(compose.get("volumes"))).as("named volume of %s", name).containsKey(source);
                }
            }
        }
        // Only the monitoring profile: a plain `up` or `--profile cpu` starts neither.
        assertThat(services).allSatisfy((name, s) -> {
            if (List.of("prometheus", "grafana").contains(name)) {
                return;
            }
            assertThat(strings(map(s).getOrDefault("profiles", List.of()))).as(name).doesNotContain("monitoring");
        });
    }

    @Test
    void grafanaGetsTheComposePrometheusAsDefaultDatasourceAndLoadsTheBoardAsHome() throws IOException {
        Map<String, Object> ds = yaml(DOCKER.resolve("grafana/provisioning/datasources/allsum-prometheus.yaml"));
        assertThat(ds.get("apiVersion")).isEqualTo(1);
        List<Object> sources = list(ds.get("datasources"));
        assertThat(sources).hasSize(1);
        Map<String, Object> source = map(sources.getFirst());
        String prometheusPort = strings(map(services.get("prometheus")).get("ports")).getFirst().replaceAll(".*:", "");
        assertThat(source).containsEntry("type", "prometheus").containsEntry("isDefault", true)
                .containsEntry("url", "http://prometheus:" + prometheusPort);

        Map<String, Object> providers = yaml(DOCKER.resolve("grafana/provisioning/dashboards/allsum.yaml"));
        Map<String, Object> provider = map(list(providers.get("providers")).getFirst());
        assertThat(provider).containsEntry("type", "file");
        String folder = (String) map(provider.get("options")).get("path");

        Map<String, Object> grafana = map(services.get("grafana"));
        String boardInContainer = strings(grafana.get("volumes")).stream()
                .filter(v -> v.startsWith("./grafana/allsum-dashboard.json:")).findFirst()
                .map(v -> v.split(":")[1]).orElseThrow(() -> new AssertionError("the board is not mounted"));
        assertThat(boardInContainer).isEqualTo(folder + "/allsum-dashboard.json");
        assertThat(strings(grafana.get("volumes"))).contains("./grafana/provisioning:/etc/grafana/provisioning:ro");
        assertThat(map(grafana.get("environment")))
                .containsEntry("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH", boardInContainer);
    }

    @Test
    void composeAcceptsTheMonitoringProfileBesideCpu() throws Exception {
        List<String> cli = composeCli();
        List<String> command = new ArrayList<>(cli);
        command.addAll(List.of("-f", DOCKER.resolve("compose.yaml").toString(), "-p", "allsum-config-check",
                "--profile", "cpu", "--profile", "monitoring", "config"));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().put("ALLSUM_TOKEN", "config-check-token");
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("compose config finished").isTrue();
        String output = new String(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(output).isZero();
        assertThat(output).contains("prom/prometheus:", "grafana/grafana:", "cpu-rank0");
    }

    /** `docker compose` where the client has the plugin, else Debian's docker-compose; skips without either. */
    static List<String> composeCli() throws InterruptedException {
        for (List<String> candidate : List.of(List.of("docker", "compose"), List.of("docker-compose"))) {
            try {
                List<String> version = new ArrayList<>(candidate);
                version.add("version");
                Process p = new ProcessBuilder(version).redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                if (p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0) {
                    return candidate;
                }
                p.destroyForcibly();
            } catch (IOException e) {
                // not installed
            }
        }
        abort("no compose CLI (neither `docker compose` nor `docker-compose`): `config --profile monitoring` not run");
        return List.of();
    }

    private List<Map<String, Object>> scrapeConfigs() {
        return list(prometheus.get("scrape_configs")).stream().map(MonitoringConfigTest::map).toList();
    }

    private List<String> targets(String job) {
        Map<String, Object> config = scrapeConfigs().stream().filter(j -> job.equals(j.get("job_name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no scrape job " + job));
        List<String> targets = new ArrayList<>();
        for (Object staticConfig : list(config.get("static_configs"))) {
            targets.addAll(strings(map(staticConfig).get("targets")));
        }
        return targets;
    }

    /** SERVER_PORT that an image's Dockerfile sets. */
    private static String imagePort(String dockerfile) throws IOException {
        Matcher m = Pattern.compile("SERVER_PORT=(\\d+)").matcher(Files.readString(DOCKER.resolve(dockerfile)));
        assertThat(m.find()).as("%s sets SERVER_PORT", dockerfile).isTrue();
        return m.group(1);
    }

    private static Map<String, Object> yaml(Path file) throws IOException {
        try (var in = Files.newInputStream(file)) {
            Object doc = new Yaml().load(in);
            assertThat(doc).as(file.toString()).isInstanceOf(Map.class);
            return map(doc);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        assertThat(o).isInstanceOf(Map.class);
        return (Map<String, Object>) o;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> list(Object o) {
        assertThat(o).isInstanceOf(List.class);
        return (List<Object>) o;
    }

    private static List<String> strings(Object o) {
        return list(o).stream().map(String::valueOf).toList();
    }
}
