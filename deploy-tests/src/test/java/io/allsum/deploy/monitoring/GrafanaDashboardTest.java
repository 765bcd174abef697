package io.allsum.deploy.monitoring;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/** The board's JSON as Grafana needs it: every panel placed, fed by the Prometheus variable, every query parseable. */
class GrafanaDashboardTest {

    /** Classic dashboard JSON of Grafana 12.x/13.x. */
    static final int SCHEMA_VERSION = 42;
    static final String DATASOURCE_UID = "${DS_PROMETHEUS}";
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?(\\w+)");
    private static final Set<String> BUILT_IN = Set.of("__rate_interval", "__interval", "__range", "__all");

    private final GrafanaDashboard board = GrafanaDashboard.load();

    GrafanaDashboardTest() throws IOException {
    }

    @Test
    void isACurrentClassicDashboardWithAStableUid() {
        assertThat(board.root.path("schemaVersion").asInt()).isEqualTo(SCHEMA_VERSION);
        assertThat(board.root.path("uid").asText()).isEqualTo("allsum-overview");
        assertThat(board.root.path("title").asText()).isNotBlank();
        // __inputs only works for a UI import and breaks file provisioning: the datasource variable serves both.
        assertThat(board.root.has("__inputs")).isFalse();
    }

    @Test
    void panelIdsAreUniqueAndEveryPanelIsPlacedInsideTheGridWithoutOverlap() {
        List<JsonNode> panels = board.panels();
        assertThat(panels).hasSizeGreaterThan(10);
        assertThat(panels).extracting(p -> p.path("id").asInt(-1)).doesNotHaveDuplicates().allMatch(id -> id > 0);
        List<int[]> boxes = new ArrayList<>();
        for (JsonNode p : panels) {
            JsonNode g = p.path("gridPos");
            String title = p.path("title").asText();
            for (String field : List.of("h", "w", "x", "y")) {
                assertThat(g.path(field).isInt()).as("%s gridPos.%s", title, field).isTrue();
            }
            int x = g.path("x").asInt(), y = g.path("y").asInt(), w = g.path("w").asInt(), h = g.path("h").asInt();
            assertThat(w).as("%s width", title).isBetween(1, 24);
            assertThat(h).as("%s height", title).isPositive();
            assertThat(x + w).as("%s right edge", title).isLessThanOrEqualTo(24);
            for (int[] other : boxes) {
                boolean apart = x >= other[0] + other[2] || other[0] >= x + w || y >= other[1] + other[3]
                        || other[1] >= y + h;
                assertThat(apart).as("%s overlaps a panel at x=%d y=%d", title, other[0], other[1]).isTrue();
            }
            boxes.add(new int[]{x, y, w, h});
        }
    }

    @Test
    void everyDataPanelHasThePrometheusVariableAsDatasourceAndTargetsWithExpressions() {
        assertThat(board.dataPanels()).allSatisfy(p -> {
            String title = p.path("title").asText();
            assertThat(title).isNotBlank();
            assertThat(p.path("datasource").path("uid").asText()).as(title).isEqualTo(DATASOURCE_UID);
            assertThat(p.path("datasource").path("type").asText()).as(title).isEqualTo("prometheus");
            assertThat(p.path("targets").size()).as("%s targets", title).isPositive();
            Set<String> refIds = new HashSet<>();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("expr").asText()).as("%s expr", title).isNotBlank();
                assertThat(refIds.add(t.path("refId").asText())).as("%s refId unique", title).isTrue();
                assertThat(t.path("datasource").path("uid").asText()).as(title).isEqualTo(DATASOURCE_UID);
            }
        });
    }

    @Test
    void theDatasourceVariablePicksPrometheusAndQueryVariablesUseIt() {
        JsonNode ds = board.variables().stream().filter(v -> v.path("name").asText().equals("DS_PROMETHEUS"))
                .findFirst().orElseThrow(() -> new AssertionError("no DS_PROMETHEUS variable"));
        assertThat(ds.path("type").asText()).isEqualTo("datasource");
        assertThat(ds.path("query").asText()).isEqualTo("prometheus");
        assertThat(board.variables()).filteredOn(v -> v.path("type").asText().equals("query"))
                .isNotEmpty()
                .allSatisfy(v -> assertThat(v.path("datasource").path("uid").asText()).isEqualTo(DATASOURCE_UID));
    }

    @Test
    void everyVariableThatAQueryOrTitleUsesIsDefined() {
        Set<String> defined = board.variables().stream().map(v -> v.path("name").asText()).collect(Collectors.toSet());
        List<String> texts = new ArrayList<>();
        board.queries().forEach(q -> texts.add(q.promql()));
        board.panels().forEach(p -> texts.add(p.path("title").asText()));
        for (String text : texts) {
            Matcher m = VARIABLE.matcher(text);
            while (m.find()) {
                assertThat(defined.contains(m.group(1)) || BUILT_IN.contains(m.group(1)))
                        .as("$%s in: %s", m.group(1), text).isTrue();
            }
        }
    }

    @Test
    void everyQueryParsesAndReadsAnAllsumMetric() {
        assertThat(board.queries()).allSatisfy(q -> assertThat(q.reads().selectors())
                .as(q.where()).isNotEmpty()
                .allSatisfy(s -> assertThat(s.metric()).as(q.where()).startsWith("allsum_")));
    }

    @Test
    void theBoardShowsWhatTheIssueAsksFor() {
        record Read(String metric, Set<String> grouping) {
        }
        List<Read> reads = board.queries().stream().filter(q -> !q.variable())
                .flatMap(q -> q.reads().selectors().stream().map(s -> new Read(s.metric(), q.reads().groupingLabels())))
                .toList();
        assertThat(reads)
                .as("collective time quantiles per op and size")
                .anyMatch(r -> r.metric().equals("allsum_collective_seconds_bucket")
                        && r.grouping().containsAll(Set.of("le", "op", "size")))
                .as("bus bandwidth per size")
                .anyMatch(r -> r.metric().startsWith("allsum_collective_bus_bandwidth_bytes_per_second")
                        && r.grouping().contains("size"))
                .as("joins by outcome")
                .anyMatch(r -> r.metric().equals("allsum_rendezvous_joins_total") && r.grouping().contains("outcome"))
                .as("generations failed by cause")
                .anyMatch(r -> r.metric().equals("allsum_rendezvous_generations_failed_total")
                        && r.grouping().contains("cause"))
                .as("jobs by state")
                .anyMatch(r -> r.metric().equals("allsum_jobs_total") && r.grouping().contains("state"))
                .as("job durations")
                .anyMatch(r -> r.metric().equals("allsum_jobs_duration_seconds_bucket"))
                .as("validation: a row per pair, a row per rank's stalls, the suspects")
                .anyMatch(r -> r.metric().equals("allsum_validation_pair_gbps")
                        && r.grouping().containsAll(Set.of("group", "low", "high")))
                .anyMatch(r -> r.metric().equals("allsum_validation_rank_stall_seconds")
                        && r.grouping().containsAll(Set.of("group", "rank")))
                .anyMatch(r -> r.metric().equals("allsum_validation_suspects"));
    }
}
