package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/** How jobs end: aggregated success, a failed rank, a failed generation, the deadline, a removed group. */
class JobLifecycleHttpTest extends JobsHttpTestBase {

    private static final long MIB = 1L << 20;

    private Job submitSweepOfOneAndTwoMiB() {
        return http.submitOk(group, Map.of("minBytes", MIB, "maxBytes", 2 * MIB, "stepFactor", 2));
    }

    @Test
    void lastSuccessfulReportAggregatesLikeNcclTests() throws Exception {
        directory.form(group, 4);
        Job job = submitSweepOfOneAndTwoMiB();
        List<JobAssignment> received = everyRankReceives(4, 0);
        double[][] times = {{100, 210}, {120, 200}, {125, 190}, {90, 205}};

        for (int rank = 0; rank < 4; rank++) {
            http.reportOk(group, job.jobId(), success(rank, received.get(rank), List.of(
                    new RankSizeResult(MIB, MIB / 4, times[rank][0], 0),
                    new RankSizeResult(2 * MIB, 2 * MIB / 4, times[rank][1], rank == 3 ? -1 : 0))));
        }

        Job done = http.getOk(group, job.jobId());
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.failureReason()).isNull();
        assertThat(done.finishedAt()).isNotNull();
        assertThat(done.reportedRanks()).containsExactly(0, 1, 2, 3);
        assertThat(done.results()).extracting(SizeResult::bytes).containsExactly(MIB, 2 * MIB);
        SizeResult one = done.results().get(0);
        SizeResult two = done.results().get(1);
        assertThat(one.timeMicros()).isEqualTo(125.0);
        assertThat(one.algBandwidthGBps()).isCloseTo(MIB / 125.0 / 1e3, within(1e-9));
        assertThat(one.busBandwidthGBps()).isCloseTo(MIB / 125.0 / 1e3 * 1.5, within(1e-9));
        assertThat(one.wrongElements()).isZero();
        assertThat(two.timeMicros()).isEqualTo(210.0);
        assertThat(two.busBandwidthGBps()).isCloseTo(2.0 * MIB / 210.0 / 1e3 * 1.5, within(1e-9));
        assertThat(two.wrongElements()).as("rank 3 did not verify").isEqualTo(-1);
    }

    @Test
    void wrongElementsFailTheJobButKeepTheResults() {
        directory.form(group, 2);
        Job job = http.submitOk(group, JobSpec.allSum(1024));
        List<JobAssignment> received = everyRankReceives(2, 0);

        http.reportOk(group, job.jobId(), success(0, received.get(0), List.of(new RankSizeResult(1024, 256, 5, 2))));
        http.reportOk(group, job.jobId(), success(1, received.get(1), List.of(new RankSizeResult(1024, 256, 5, 1))));

        Job done = http.getOk(group, job.jobId());
        assertThat(done.state()).isEqualTo(JobState.FAILED);
        assertThat(done.failureReason()).contains("3 wrong elements").contains("[1024]");
        assertThat(done.results()).singleElement().satisfies(r -> assertThat(r.wrongElements()).isEqualTo(3));
    }

    @Test
    void failedRankReportFailsTheJobNamingTheRankAndLaterReportsAreIgnored() {
        directory.form(group, 4);
        Job job = http.submitOk(group, JobSpec.allSum(8));
        List<JobAssignment> received = everyRankReceives(4, 0);

        http.reportOk(group, job.jobId(), new RankReport(2, instance(2), received.get(2).generation(), false,
                "peer rank 3 closed the connection", null));
        http.reportOk(group, job.jobId(), success(1, received.get(1), List.of(new RankSizeResult(8, 2, 3, 0))));

        Job failed = http.getOk(group, job.jobId());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank 2").contains("peer rank 3 closed the connection");
        assertThat(failed.reportedRanks()).containsExactly(2);
    }

    @Test
    void reportWithTheWrongSizesAnswers400NamingResults() {
        directory.form(group, 2);
        Job job = submitSweepOfOneAndTwoMiB();
        JobAssignment received = everyRankReceives(2, 0).getFirst();

        HttpResponse<String> response = http.report(group, job.jobId(),
                success(0, received, List.of(new RankSizeResult(MIB, MIB / 4, 1, 0))));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(http.detail(response)).startsWith("results:").contains("rank 0");
    }

    @Test
    void reportsFromANonMemberOrForAnotherGenerationAnswer409() {
        directory.form(group, 2);
        Job job = http.submitOk(group, JobSpec.allSum(8));
        everyRankReceives(2, 0);
        List<RankSizeResult> results = List.of(new RankSizeResult(8, 2, 1, 0));

        HttpResponse<String> stranger = http.report(group, job.jobId(), new RankReport(1, "stranger", 1L, true, null, results));
        HttpResponse<String> otherGeneration = http.report(group, job.jobId(), new RankReport(1, instance(1), 7L, true, null, results));

        assertThat(stranger.statusCode()).isEqualTo(409);
        assertThat(http.detail(stranger)).contains("rank 1").contains("not a member");
        assertThat(otherGeneration.statusCode()).isEqualTo(409);
        assertThat(http.detail(otherGeneration)).contains("generation 1").contains("generation 7");
        assertThat(http.getOk(group, job.jobId()).state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void failedGenerationFailsItsRunningJobWhileQueuedJobsGoToTheNextGeneration() {
        directory.form(group, 2);
        Job running = http.submitOk(group, JobSpec.allSum(8));
        everyRankReceives(2, 0);
        Job queued = http.submitOk(group, JobSpec.allSum(16));

        directory.fail(group, "rank 1 missed its heartbeats");

        Job failed = http.getOk(group, running.jobId());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("generation 1 failed").contains("rank 1 missed its heartbeats");
        assertThat(http.getOk(group, queued.jobId()).state()).isEqualTo(JobState.QUEUED);

        directory.nextGeneration(group);
        List<JobAssignment> inGeneration2 = everyRankReceives(2, running.seq());
        assertThat(inGeneration2).allSatisfy(a -> {
            assertThat(a.jobId()).isEqualTo(queued.jobId());
            assertThat(a.generation()).isEqualTo(2);
        });
    }

    @Test
    void jobPastItsDeadlineFailsNamingTheRanksThatDidNotReport() throws Exception {
        directory.form(group, 4);
        Job job = http.submitOk(group, Map.of("minBytes", 8, "maxBytes", 8, "timeoutSeconds", 1));
        JobAssignment rank0 = http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();
        http.nextOk(group, 1, instance(1), 0, 5).orElseThrow();
        http.reportOk(group, job.jobId(), success(0, rank0, List.of(new RankSizeResult(8, 2, 1, 0))));

        Job failed = awaitState(job.jobId(), JobState.FAILED);

        assertThat(failed.failureReason()).contains("timed out after 1 s").contains("ranks [1, 2, 3] did not report")
                .contains("ranks [2, 3] never received");
    }

    @Test
    void removedGroupCancelsQueuedJobsAndFailsRunningOnes() {
        directory.form(group, 2);
        Job running = http.submitOk(group, JobSpec.allSum(8));
        http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();
        Job queued = http.submitOk(group, JobSpec.allSum(16));

        directory.remove(group, "closed by its owner");

        Job failed = http.getOk(group, running.jobId());
        Job cancelled = http.getOk(group, queued.jobId());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("closed by its owner");
        assertThat(cancelled.state()).isEqualTo(JobState.CANCELLED);
        assertThat(http.submit(group, JobSpec.allSum(8)).statusCode()).isEqualTo(404);
    }
}
