package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.within;

class GroupJobsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final GroupJobs jobs = new GroupJobs("g", TestJobStores.inMemory(), new JobMetrics(registry, state -> 0),
            Clock.systemUTC());

    @Test
    void historyDropsTheOldestFinishedJobsFirst() {
        Job first = jobs.submit(JobSpec.allSum(8), 3);
        Job second = jobs.submit(JobSpec.allSum(8), 3);
        Job third = jobs.submit(JobSpec.allSum(8), 3);
        jobs.cancel(second.jobId());

        Job fourth = jobs.submit(JobSpec.allSum(8), 3);

        assertThat(jobs.list()).extracting(Job::jobId).containsExactly(first.jobId(), third.jobId(), fourth.jobId());
        assertThat(fourth.seq()).isEqualTo(4);
    }

    @Test
    void historyFullOfUnfinishedJobsRejectsTheSubmissionWith429() {
        jobs.submit(JobSpec.allSum(8), 2);
        jobs.submit(JobSpec.allSum(8), 2);

        ProblemException e = catchThrowableOfType(ProblemException.class,
                () -> jobs.submit(JobSpec.allSum(8), 2));

        assertThat(e.code()).isEqualTo(ProblemCode.TOO_MANY_JOBS);
        assertThat(e.code().status()).isEqualTo(429);
        assertThat(e.detail()).contains("2 unfinished jobs");
    }

    @Test
    void submissionFiresTheChangeSignalButADispatchDoesNot() {
        CompletableFuture<Void> beforeSubmit = jobs.changeSignal();
        jobs.submit(JobSpec.allSum(8), 10);
        CompletableFuture<Void> beforeDispatch = jobs.changeSignal();

        jobs.assign(0, 0, 1, 2);

        assertThat(beforeSubmit).isDone();
        assertThat(beforeDispatch).isNotDone();
    }

    @Test
    void finalStatesAreCountedOnceWithTheirStateTag() {
        Job job = jobs.submit(JobSpec.allSum(8), 10);
        jobs.cancel(job.jobId());

        assertThat(registry.get(JobMetrics.JOBS).tag("state", "submitted").counter().count()).isEqualTo(1);
        assertThat(registry.get(JobMetrics.JOBS).tag("state", "cancelled").counter().count()).isEqualTo(1);
        assertThat(registry.get(JobMetrics.JOBS).tag("state", "failed").counter().count()).isZero();
        assertThat(jobs.count(JobState.QUEUED)).isZero();
        assertThat(jobs.get(job.jobId())).hasValueSatisfying(j -> assertThat(j.state()).isEqualTo(JobState.CANCELLED));
    }

    @Test
    void queuedJobIsNotBoundToAGenerationThatAlreadyFailed() {
        Job job = jobs.submit(JobSpec.allSum(8), 10);
        jobs.generationFailed(1, "rank 1 missed its heartbeats");

        assertThat(jobs.assign(0, 0, 1, 2)).as("stale generation 1").isNull();
        assertThat(jobs.assign(0, 0, 2, 2)).satisfies(a -> {
            assertThat(a.jobId()).isEqualTo(job.jobId());
            assertThat(a.generation()).isEqualTo(2);
        });
    }

    private static final long MIB = 1L << 20;

    /** An all-sum of 1 MiB on a group of 4 that leaves rank 2 out. */
    private Job submitWithoutRank2() {
        Job job = jobs.submit(JobSpec.builder().size(MIB).iterations(1, 0).timeoutSeconds(60)
                .excludeRanks(List.of(2)).build(), 10);
        for (int rank = 0; rank < 4; rank++) {
            jobs.assign(rank, 0, 1, 4);
        }
        return job;
    }

    private static RankReport measured(int rank, double micros) {
        return new RankReport(rank, "i" + rank, 1L, true, null, List.of(new RankSizeResult(MIB, MIB / 4, micros, 0)));
    }

    @Test
    void aJobWithAnExcludedRankCompletesWhenAllReportedAndCombinesOnlyTheKeptRanks() {
        Job job = submitWithoutRank2();
        jobs.report(job.jobId(), measured(0, 100));
        jobs.report(job.jobId(), measured(1, 200));
        jobs.report(job.jobId(), measured(3, 150));
        assertThat(jobs.get(job.jobId()).orElseThrow().state()).as("rank 2 has not reported").isEqualTo(JobState.RUNNING);

        jobs.report(job.jobId(), new RankReport(2, "i2", 1L, true, null, List.of()));

        Job done = jobs.get(job.jobId()).orElseThrow();
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.reportedRanks()).containsExactly(0, 1, 2, 3);
        assertThat(done.spec().excludeRanks()).containsExactly(2);
        SizeResult row = done.results().getFirst();
        assertThat(row.rankTimesMicros()).containsExactly(100.0, 200.0, 150.0);
        assertThat(row.timeMicros()).isEqualTo(200.0);
        // 3 ranks ran it: busbw = algbw x 2 (3 - 1) / 3, not the 4-rank factor 1.5
        assertThat(row.busBandwidthGBps()).isCloseTo(row.algBandwidthGBps() * 4 / 3, within(1e-9));
    }

    @Test
    void rowsGrowOnceTheKeptRanksMeasuredAndAnExcludedRankThatSendsSizesIsRefused() {
        Job job = submitWithoutRank2();
        for (int rank : List.of(0, 1, 3)) {
            RankReport r = measured(rank, 10);
            jobs.report(job.jobId(), new RankReport(rank, r.instanceId(), 1L, true, null, r.results(), true, null));
        }
        assertThat(jobs.get(job.jobId()).orElseThrow().results()).as("rows from partial reports").hasSize(1);

        ProblemException e = catchThrowableOfType(ProblemException.class,
                () -> jobs.report(job.jobId(), measured(2, 10)));

        assertThat(e.code().status()).isEqualTo(400);
        assertThat(e.detail()).contains("rank 2");
    }
}
