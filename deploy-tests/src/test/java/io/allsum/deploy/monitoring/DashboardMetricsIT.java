package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The board against what allsum really exports: the packaged server and two ring workers (token, kernel-picked
 * ports) run small sweeps. First check: /actuator/prometheus of all three, scraped as Prometheus would, holds every
 * metric name and label any panel or variable query of docker/grafana/allsum-dashboard.json reads. Second check,
 * where a {@code prometheus} binary exists: a real Prometheus runs docker/prometheus/prometheus.yml (targets aimed
 * here) and evaluates every query of the board, with Grafana's variables set as "All" would set them.
 */
class DashboardMetricsIT {

    static final String GROUP = "board";
    /** Panels that only show data after a failure: valid queries, empty results in a healthy run. */
    static final Set<String> EMPTY_WHEN_HEALTHY = Set.of("Failed collective sizes");
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)}?");

    @TempDir
    static Path dir;

    static LocalAllsum cluster;
    static LocalPrometheus prometheus;
    static String promtoolCheck;
    static final List<JsonNode> sweeps = new ArrayList<>();
    static JsonNode validation;

    @BeforeAll
    static void clusterRunsSweepsWhilePrometheusScrapes() throws Exception {
        assumeTrue(LocalAllsum.jarsBuilt(), "server or worker jar absent: ./mvnw -pl deploy-tests -am verify builds them");
        cluster = LocalAllsum.start(dir, GROUP, 2);
        Optional<Path> binary = LocalPrometheus.binary();
        if (binary.isPresent()) {
            Path config = LocalPrometheus.configFor(dir, cluster);
            promtoolCheck = promtool(config);
            prometheus = LocalPrometheus.start(binary.get(), dir, config);
            prometheus.awaitTargetsUp(3);
        }
        sweeps.add(cluster.sweep());
        validation = cluster.validate();
        assertThat(validation.path("state").asText()).as("the validation: %s", validation).isEqualTo("succeeded");
        if (prometheus != null) {
            // The collective meters appear with the first sweep; a second one makes their rates non-zero. Every size
            // must be scraped before the second sweep: a scrape during the first showed only the sizes done by then,
            // and a size first scraped after the second sweep stays flat, its p50 NaN (CI once saw 3 of 14 so).
            prometheus.awaitSeries("count by (size) (allsum_collective_seconds_count)", LocalAllsum.SWEEP_SIZES,
                    Duration.ofSeconds(30));
            sweeps.add(cluster.sweep());
            prometheus.awaitSeries("sum(rate(allsum_collective_seconds_count[5m])) > 0", Duration.ofSeconds(30));
            prometheus.awaitSeries("sum(rate(allsum_jobs_duration_seconds_count[5m])) > 0", Duration.ofSeconds(30));
            prometheus.awaitSeries("allsum_validation_pair_gbps", Duration.ofSeconds(30));
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (prometheus != null) {
            prometheus.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyMetricAndLabelTheBoardQueriesIsInTheScrapesOfTheServerAndTheWorkers() throws Exception {
        assertThat(sweeps).extracting(j -> j.path("state").asText()).as("the sweeps: %s", sweeps)
                .containsOnly("succeeded");
        assertThat(validation.path("state").asText()).as("the validation: %s", validation).isEqualTo("succeeded");
        List<String> expositions = new ArrayList<>();
        for (URI target : cluster.targets()) {
            URI endpoint = target.resolve("/actuator/prometheus");
            assertThat(cluster.get(endpoint, null).statusCode())
                    .as("%s without the token (why prometheus.yml sends one)", target).isEqualTo(401);
            HttpResponse<String> scrape = cluster.get(endpoint, cluster.token);
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

    @Test
    void aRealPrometheusWithTheShippedScrapeConfigAnswersEveryQueryOfTheBoard() throws Exception {
        assumeTrue(prometheus != null, "no prometheus binary on PATH (Debian: apt-get install prometheus):"
                + " the board's queries were not evaluated");
        if (promtoolCheck != null) {
            assertThat(promtoolCheck).as("promtool check config").contains("SUCCESS");
        }
        List<String> problems = new ArrayList<>();
        for (GrafanaDashboard.Query q : GrafanaDashboard.load().queries()) {
            if (q.variable()) {
                for (PromQl.Selector s : q.reads().selectors()) {
                    String label = s.groupedBy().iterator().next();
                    Set<String> values = new TreeSet<>();
                    prometheus.series(asAll(selectorText(q.promql()))).forEach(x -> values.add(x.path(label).asText()));
                    values.remove("");
                    if (values.isEmpty()) {
                        problems.add(q.where() + ": no values for " + label);
                    }
                }
                continue;
            }
            JsonNode answer = prometheus.query(asAll(q.promql()));
            if (!"success".equals(answer.path("status").asText())) {
                problems.add(q.where() + ": " + answer.path("error").asText());
            } else if (answer.path("data").path("result").isEmpty()
                    && EMPTY_WHEN_HEALTHY.stream().noneMatch(q.where()::contains)) {
                problems.add(q.where() + ": no series");
            }
        }
        assertThat(problems).as("queries of the board that Prometheus refused or answered with nothing").isEmpty();

        // A sweep that straddles a scrape shows its later sizes one scrape later (absent, or rate 0 and so NaN):
        // wait (bounded) for the asserted state: 10 sizes or more, every one positive (CI once saw 8).
        String busBandwidth = panelExpr("Bus bandwidth by size (mean over ranks)", "A");
        String p50 = "histogram_quantile(0.5, sum by (le, op, size) (rate(allsum_collective_seconds_bucket"
                + "{outcome=\"success\"}[5m])))";
        for (String perSize : List.of(p50, busBandwidth)) {
            prometheus.awaitSeries(perSize + " > 0", 10, Duration.ofSeconds(60));
            prometheus.awaitSeries("count(" + perSize + " > 0) == count(" + perSize + ")", Duration.ofSeconds(30));
        }
        assertThat(values(p50)).as("collective p50 per size").hasSizeGreaterThanOrEqualTo(10)
                .allSatisfy(v -> assertThat(v).isFinite().isPositive());
        assertThat(values(busBandwidth))
                .as("bus bandwidth per size").hasSizeGreaterThanOrEqualTo(10)
                .allSatisfy(v -> assertThat(v).isFinite().isPositive());
        assertThat(values(panelExpr("Workers ready", "A"))).containsExactly(2.0);
        assertThat(values("sum(allsum_rendezvous_groups_active)")).containsExactly(1.0);
    }

    /** A panel's target, with the variables set as "All". */
    private static String panelExpr(String title, String refId) throws IOException {
        return GrafanaDashboard.load().queries().stream()
                .filter(q -> q.where().equals("panel '" + title + "' target " + refId)).findFirst()
                .map(q -> asAll(q.promql())).orElseThrow(() -> new AssertionError("no panel " + title));
    }

    private static List<Double> values(String promql) throws IOException, InterruptedException {
        JsonNode answer = prometheus.query(asAll(promql));
        assertThat(answer.path("status").asText()).as("%s: %s", promql, answer).isEqualTo("success");
        List<Double> values = new ArrayList<>();
        answer.path("data").path("result").forEach(r -> values.add(Double.parseDouble(r.path("value").get(1).asText())));
        return values;
    }

    /** Grafana's substitution with every multi-value variable at "All" (.*), the window 5m and rate interval 1m. */
    static String asAll(String text) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = switch (m.group(1)) {
                case "window" -> "5m";
                case "__rate_interval" -> "1m";
                default -> ".*";
            };
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    /** The selector of label_values(selector, label). */
    private static String selectorText(String variableQuery) {
        String inner = variableQuery.strip().substring("label_values(".length());
        return inner.substring(0, inner.lastIndexOf(','));
    }

    private static String promtool(Path config) throws IOException, InterruptedException {
        Optional<Path> promtool = LocalPrometheus.binary("promtool");
        if (promtool.isEmpty()) {
            return null;
        }
        Process p = new ProcessBuilder(promtool.get().toString(), "check", "config", config.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return "promtool did not finish within 60 s";
        }
        return out;
    }
}
