package io.allsum.deploy.monitoring;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PrometheusScrapeTest {

    static final String EXPOSITION = """
            # HELP jobs_seconds Job time
            # TYPE jobs_seconds histogram
            jobs_seconds_bucket{state="failed",le="0.5"} 1
            jobs_seconds_bucket{state="failed",le="+Inf"} 1
            jobs_seconds_count{state="failed"} 1
            jobs_seconds_sum{state="failed"} 0.25
            # TYPE jobs_seconds_max gauge
            jobs_seconds_max{state="failed"} 0.25
            # TYPE joins counter
            joins_total{outcome="complete"} 3.0
            # TYPE bandwidth summary
            bandwidth_count{size="64KiB",odd="a\\"b,c=d"} 2
            bandwidth_sum{size="64KiB",odd="a\\"b,c=d"} 2e9
            # TYPE up_gauge gauge
            up_gauge 1
            """;

    private final PrometheusScrape scrape = PrometheusScrape.of(EXPOSITION);

    @Test
    void samplesOfEachFamilyTypeAreFoundWithTheirLabels() {
        assertThat(scrape.problems(PromQl.reads(
                "histogram_quantile(0.5, sum by (le, state) (rate(jobs_seconds_bucket{state=\"failed\"}[1m])))"
                        + " + jobs_seconds_max + sum by (outcome) (joins_total) + bandwidth_sum / bandwidth_count"
                        + " + up_gauge{instance=\"x\"}"))).isEmpty();
        assertThat(scrape.labelValues("bandwidth_count", "odd")).containsExactly("a\"b,c=d");
        assertThat(scrape.labelValues("bandwidth_count", "size")).containsExactly("64KiB");
    }

    @Test
    void aFamilyNameIsNotASampleName() {
        assertThat(scrape.problems(PromQl.reads("rate(jobs_seconds[5m])")))
                .singleElement().asString().contains("no sample named jobs_seconds", "histogram family");
        assertThat(scrape.problems(PromQl.reads("joins")))
                .singleElement().asString().contains("joins_total");
    }

    @Test
    void aSuffixMustMatchItsFamilysType() {
        PrometheusScrape wrong = PrometheusScrape.of("# TYPE x summary\nx_bucket{le=\"1\"} 1\n");

        assertThat(wrong.problems(PromQl.reads("x_bucket"))).singleElement().asString()
                .contains("family x is a summary");
    }

    @Test
    void missingMetricsAndLabelsAreEachNamed() {
        assertThat(scrape.problems(PromQl.reads("sum by (cause) (joins_total{group=\"g\"}) + nope")))
                .hasSize(3)
                .anySatisfy(p -> assertThat(p).contains("joins_total has no label 'group'"))
                .anySatisfy(p -> assertThat(p).contains("grouping label 'cause'"))
                .anySatisfy(p -> assertThat(p).contains("no sample named nope"));
    }
}
