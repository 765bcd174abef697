package io.allsum.server.jobs;

import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.annotation.Autowired;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.validate.RankValidation.CpuThrottling;
import io.allsum.model.validate.RankValidation.Confirmation;
import io.allsum.model.validate.RankValidation.PairMeasurement;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.PairSchedule;
import io.allsum.model.validate.Suspect;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/** A validation job through the real HTTP API: figures as they come, the verdict at the end, its failures. */
class JobValidationHttpTest extends JobsHttpTestBase {

    @Autowired
    MeterRegistry meters;

    private static final long KIB = 1024;
    /** 3 hosts x 2 ranks. */
    private static final int N = 6;

    private static String host(int rank) {
        return "10.0.0." + (rank / 2 + 1);
    }

    private Job submitValidation(Map<String, Object> validation) {
        return http.submitOk(group, Map.of("minBytes", KIB, "maxBytes", 4 * KIB, "stepFactor", 4,
                "validation", validation));
    }

    private RankReport partial(int rank, JobAssignment job, RankValidation v) {
        return new RankReport(rank, instance(rank), job.generation(), true, null, List.of(), true, v);
    }

    /** Rank 0's partial report {@code v} on a validation of a group of 2, as answered. */
    private HttpResponse<String> reportAloneOfTwo(RankValidation v) {
        directory.form(group, 2);
        Job job = submitValidation(Map.of());
        JobAssignment received = everyRankReceives(2, 0).getFirst();
        return http.report(group, job.jobId(), partial(0, received, v));
    }

    private RankReport last(int rank, JobAssignment job, RankValidation v, double micros) {
        return new RankReport(rank, instance(rank), job.generation(), true, null, List.of(
                new RankSizeResult(KIB, KIB / 4, micros, 0), new RankSizeResult(4 * KIB, KIB, 2 * micros, 0)),
                null, v);
    }

    /** Every pair of the schedule, as {@code rank} measured it. */
    private static List<PairMeasurement> pairsOf(int rank, BiFunction<Integer, Integer, Double> gbps) {
        List<PairMeasurement> out = new ArrayList<>();
        PairSchedule schedule = PairSchedule.roundRobin(N);
        for (int round = 0; round < schedule.rounds().size(); round++) {
            int peer = schedule.peerOf(rank, round);
            out.add(new PairMeasurement(peer, 16 * KIB, gbps.apply(rank, peer) * (1 + 0.01 * ((rank + peer) % 3)),
                    20 + rank));
        }
        return out;
    }

    private Job runValidation(BiFunction<Integer, Integer, Double> gbps, Map<String, Object> settings)
            throws Exception {
        return runValidation(gbps, settings, List.of());
    }

    private Job runValidation(BiFunction<Integer, Integer, Double> gbps, Map<String, Object> settings,
                              List<Confirmation> confirmations) throws Exception {
        return runValidation(gbps, settings, confirmations, rank -> null);
    }

    private Job runValidation(BiFunction<Integer, Integer, Double> gbps, Map<String, Object> settings,
                              List<Confirmation> confirmations, java.util.function.IntFunction<CpuThrottling> cpu)
            throws Exception {
        directory.form(group, N);
        Job job = submitValidation(settings);
        List<JobAssignment> received = everyRankReceives(N, 0);
        assertThat(received.getFirst().spec().validation().soloBytes()).isPositive();
        for (int rank = 0; rank < N; rank++) {
            http.reportOk(group, job.jobId(), partial(rank, received.get(rank),
                    new RankValidation(host(rank), "cpu", 3.0 + 0.01 * rank, List.of(), null)));
        }
        Job alone = http.getOk(group, job.jobId());
        assertThat(alone.state()).isEqualTo(JobState.RUNNING);
        assertThat(alone.validation().solo()).hasSize(N);
        assertThat(alone.validation().phase()).isEqualTo(ValidationResult.PAIRS);
        assertThat(alone.validation().verdict()).isNull();
        assertThat(alone.validation().pairsSeconds()).isNull();
        for (int rank = 0; rank < N; rank++) {
            http.reportOk(group, job.jobId(), last(rank, received.get(rank), new RankValidation(host(rank), "cpu",
                    3.0 + 0.01 * rank, pairsOf(rank, gbps), 0.5 + 0.1 * rank, List.of(), null, confirmations,
                    List.of(), cpu.apply(rank)), 100 + rank));
        }
        return awaitState(job.jobId(), JobState.SUCCEEDED);
    }

    @Test
    void aHealthyGroupsValidationSucceedsHealthyWithEveryPairAndRank() throws Exception {
        Job done = runValidation((a, b) -> 1.0, Map.of());
        ValidationResult v = done.validation();
        assertThat(v.verdict()).isEqualTo(ValidationResult.HEALTHY);
        assertThat(v.phase()).isEqualTo(ValidationResult.DONE);
        assertThat(v.suspects()).isEmpty();
        assertThat(v.pairsSeconds()).as("the slowest rank's pair phase").isEqualTo(0.5 + 0.1 * (N - 1));
        assertThat(v.ranks()).extracting(r -> r.host()).containsExactly("10.0.0.1", "10.0.0.1", "10.0.0.2",
                "10.0.0.2", "10.0.0.3", "10.0.0.3");
        assertThat(v.pairs()).hasSize(N * (N - 1) / 2);
        assertThat(v.lastArrivals()).hasSize(N);
        assertThat(done.results()).hasSize(2);
        // an ended job is read from the stored history: the validation is stored with it
        assertThat(http.listOk(group)).filteredOn(j -> j.jobId().equals(done.jobId()))
                .singleElement().satisfies(j -> assertThat(j.validation().verdict()).isEqualTo("healthy"));
    }

    @Test
    void aHostSlowWithEveryOtherHostIsTheSuspect() throws Exception {
        Job done = runValidation((a, b) -> (a / 2 == 2) != (b / 2 == 2) ? 0.2 : 1.0, Map.of());
        assertThat(meters.get(JobMetrics.VALIDATION_SUSPECTS).tag("group", group).gauge().value()).isEqualTo(1);
        assertThat(meters.get(JobMetrics.VALIDATION_PAIR).tag("group", group).gauges()).hasSize(N * (N - 1) / 2);
        assertThat(meters.get(JobMetrics.VALIDATION_PAIR).tags("group", group, "low", "0", "high", "4").gauge()
                .value()).isLessThan(0.3);
        assertThat(done.validation().verdict()).isEqualTo(ValidationResult.SUSPECTS);
        assertThat(done.validation().suspects()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.HOST);
            assertThat(s.host()).isEqualTo("10.0.0.3");
        });
    }

    @Test
    void aRankWhoseCpuQuotaRanOutInMostPeriodsIsNamedFromTheKernelsCountersAndOneRarelyIsNot() throws Exception {
        Job done = runValidation((a, b) -> 1.0, Map.of(), List.of(), rank -> switch (rank) {
            case 1 -> new CpuThrottling(2.7, 6.9, 417, 492);
            case 4 -> new CpuThrottling(0.46, 7.2, 16, 62); // 26% of its periods: a quota that barely binds
            default -> null;
        });
        assertThat(done.validation().verdict()).isEqualTo(ValidationResult.SUSPECTS);
        assertThat(done.validation().suspects()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.RANK);
            assertThat(s.rank()).isEqualTo(1);
            assertThat(s.reason()).isEqualTo("its CPU cgroup's quota ran out in 417 of its 492 periods (85%) over "
                    + "6.9 s, holding it back 2.70 s (summed over CPUs): a CPU limit");
            assertThat(s.confirmation()).startsWith("counted by the kernel");
        });
    }

    @Test
    void aThrottlingFigureThatCannotBeIsRefused() {
        HttpResponse<String> response = reportAloneOfTwo(new RankValidation("h", "cpu", 1.0, List.of(), null,
                List.of(), null, List.of(), List.of(), new CpuThrottling(1, 2, 10, 5))); // more throttled than passed
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).contains("validation.cpu");
    }

    @Test
    void aNegativeTcpCounterIsRefused() {
        HttpResponse<String> response = reportAloneOfTwo(new RankValidation("h", "cpu", 1.0, List.of(), null,
                List.of(), null, List.of(), List.of(new RankValidation.LinkTraffic(0, 100, 5, -1)), null));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).contains("validation.links[0]");
    }

    @Test
    void aPartnerTheRanksFoundBadWhileConfirmingIsNamedWithWhereItRuns() throws Exception {
        Job done = runValidation((a, b) -> 1.0, Map.of(), List.of(new Confirmation("rank/5/-1", true,
                "found while confirming: 1-5; 2-5; 4-5", 5)));
        assertThat(done.validation().verdict()).isEqualTo(ValidationResult.SUSPECTS);
        assertThat(done.validation().suspects()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.RANK);
            assertThat(s.rank()).isEqualTo(5);
            assertThat(s.host()).isEqualTo("10.0.0.3");
            assertThat(s.confirmation()).isEqualTo("found while confirming: 1-5; 2-5; 4-5");
        });
    }

    @Test
    void aFoundRankOutsideTheGroupIsRefused() {
        HttpResponse<String> response = reportAloneOfTwo(new RankValidation("h", "cpu", 1.0, List.of(), null,
                List.of(), null, List.of(new Confirmation("rank/9/-1", true, "x", 9))));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).contains("validation.confirmations").contains("found rank");
    }

    @Test
    void aGroupBelowTheExpectedBusBandwidthIsAGroupSuspect() throws Exception {
        Job done = runValidation((a, b) -> 1.0, Map.of("expectBusBandwidthGBps", 400));
        assertThat(done.validation().suspects()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.GROUP);
            assertThat(s.rank()).isEqualTo(-1);
            assertThat(s.reason()).contains("below the expected 400 GB/s");
        });
    }

    @Test
    void aRankFailingDuringThePairsFailsTheValidationInThatPhaseNamingIt() {
        directory.form(group, 2);
        Job job = submitValidation(Map.of());
        List<JobAssignment> received = everyRankReceives(2, 0);
        for (int rank = 0; rank < 2; rank++) {
            http.reportOk(group, job.jobId(), partial(rank, received.get(rank),
                    new RankValidation("h", "cpu", 3.0, List.of(), null)));
        }
        http.reportOk(group, job.jobId(), new RankReport(1, instance(1), received.get(1).generation(), false,
                "rank 1: recv from peer 0 timed out", null));

        Job failed = http.getOk(group, job.jobId());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank 1").contains("timed out");
        assertThat(failed.validation().verdict()).isEqualTo(ValidationResult.FAILED);
        assertThat(failed.validation().phase()).isEqualTo(ValidationResult.PAIRS);
    }

    @Test
    void aValidationOfOneRankIsRefusedNamingTheField() {
        directory.form(group, 1);
        HttpResponse<String> response = http.submit(group, Map.of("validation", Map.of()));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).startsWith("validation:").contains("at least 2 ranks");
    }

    @Test
    void aPairWithItselfIsRefused() {
        directory.form(group, 2);
        Job job = submitValidation(Map.of());
        JobAssignment received = everyRankReceives(2, 0).getFirst();
        HttpResponse<String> response = http.report(group, job.jobId(), partial(0, received,
                new RankValidation("h", "cpu", 1.0, List.of(new PairMeasurement(0, 8, 1, 1)), null)));
        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).contains("validation.pairs[0].peer").contains("rank 0");
    }
}
