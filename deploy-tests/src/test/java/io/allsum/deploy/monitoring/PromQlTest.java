package io.allsum.deploy.monitoring;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PromQlTest {

    @Test
    void histogramQuantileReadsTheBucketSelectorItsMatchersAndTheGroupingLabels() {
        PromQl.Reads reads = PromQl.reads("histogram_quantile(0.99, sum by (le, op, size) "
                + "(rate(allsum_collective_seconds_bucket{group=~\"$group\", outcome=\"success\"}[$window])))");

        assertThat(reads.selectors()).singleElement().satisfies(s -> {
            assertThat(s.metric()).isEqualTo("allsum_collective_seconds_bucket");
            assertThat(s.labels()).containsExactlyInAnyOrder("group", "outcome");
            assertThat(s.groupedBy()).containsExactlyInAnyOrder("le", "op", "size");
        });
    }

    @Test
    void anAggregationsGroupingAppliesOnlyToTheSelectorsInsideIt() {
        PromQl.Reads reads = PromQl.reads("sum by (op) (rate(a_sum[1m])) / sum(rate(a_count[1m])) without (size)"
                + " + max(b)");

        assertThat(reads.selectors()).extracting(PromQl.Selector::metric, PromQl.Selector::groupedBy)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("a_sum", java.util.Set.of("op")),
                        org.assertj.core.groups.Tuple.tuple("a_count", java.util.Set.of("size")),
                        org.assertj.core.groups.Tuple.tuple("b", java.util.Set.of()));
    }

    @Test
    void functionsKeywordsNumbersDurationsAndVariablesAreNotMetrics() {
        PromQl.Reads reads = PromQl.reads("sum(rate(a_total[5m] offset 1h)) * 60 / on (instance) group_left "
                + "b_count and bool c unless max_over_time(d[$__rate_interval:1m]) > 1e9");

        assertThat(reads.selectors()).extracting(PromQl.Selector::metric)
                .containsExactlyInAnyOrder("a_total", "b_count", "c", "d");
        assertThat(reads.selectors()).allSatisfy(s -> assertThat(s.groupedBy()).containsExactly("instance"));
    }

    @Test
    void bracesAndQuotesInsideLabelValuesDoNotEndTheSelector() {
        PromQl.Reads reads = PromQl.reads("x{a=\"}{\\\"\", b!~'x|y'} + y");

        assertThat(reads.selectors()).extracting(PromQl.Selector::metric).containsExactly("x", "y");
        assertThat(reads.selectors().getFirst().labels()).containsExactlyInAnyOrder("a", "b");
    }

    @Test
    void labelValuesVariableQueryReadsItsSelectorAndTheListedLabel() {
        PromQl.Reads reads = PromQl.variableQuery("label_values(allsum_worker_ready{group=~\"$group\"}, instance)");

        assertThat(reads.selectors()).extracting(PromQl.Selector::metric).containsExactly("allsum_worker_ready");
        assertThat(reads.groupingLabels()).containsExactly("instance");
    }

    @Test
    void selectorsThatNoScrapeCanConfirmAreRefused() {
        assertThatThrownBy(() -> PromQl.reads("{__name__=~\"allsum_.*\"}")).hasMessageContaining("without a metric name");
        assertThatThrownBy(() -> PromQl.variableQuery("label_values(job)")).hasMessageContaining("without a selector");
        assertThatThrownBy(() -> PromQl.variableQuery("metrics(allsum_.*)")).hasMessageContaining("label_values");
        assertThatThrownBy(() -> PromQl.reads("x{a=\"open")).hasMessageContaining("unclosed string");
    }
}
