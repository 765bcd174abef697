package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Rows while a job runs: partial reports, the rows of a failed job, and the job long-poll that ends on a new row. */
class JobProgressHttpTest extends JobsHttpTestBase {

    private static final long MIB = 1L << 20;

    /** The job under test: a sweep of 1, 2 and 4 MiB. */
    private Job job;

    /** Two ranks form the group and receive the job. */
    private List<JobAssignment> runningOnTwoRanks() {
        directory.form(group, 2);
        job = http.submitOk(group, Map.of("minBytes", MIB, "maxBytes", 4 * MIB, "stepFactor", 2));
        return everyRankReceives(2, 0);
    }

    private RankReport partial(int rank, JobAssignment job, double... times) {
        return new RankReport(rank, instance(rank), job.generation(), true, null, results(times), true, null);
    }

    private static List<RankSizeResult> results(double... times) {
        RankSizeResult[] rows = new RankSizeResult[times.length];
        for (int i = 0; i < times.length; i++) {
            long bytes = MIB << i;
            rows[i] = new RankSizeResult(bytes, bytes / 4, times[i], 0);
        }
        return List.of(rows);
    }

    @Test
    void runningJobShowsOneRowPerSizeThatEveryRankMeasured() {
        List<JobAssignment> received = runningOnTwoRanks();

        http.reportOk(group, job.jobId(), partial(0, received.get(0), 10, 20));
        Job oneRankAhead = http.getOk(group, job.jobId());
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12));
        Job firstRow = http.getOk(group, job.jobId());
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12, 18));
        Job secondRow = http.getOk(group, job.jobId());

        assertThat(oneRankAhead.state()).isEqualTo(JobState.RUNNING);
        assertThat(oneRankAhead.results()).as("rank 1 measured nothing yet").isEmpty();
        assertThat(firstRow.state()).isEqualTo(JobState.RUNNING);
        assertThat(firstRow.reportedRanks()).as("partial reports are not final").isEmpty();
        assertThat(firstRow.results()).singleElement().satisfies(r -> {
            assertThat(r.bytes()).isEqualTo(MIB);
            assertThat(r.timeMicros()).isEqualTo(12.0);
            assertThat(r.rankTimesMicros()).containsExactly(10.0, 12.0);
        });
        assertThat(secondRow.results()).extracting(SizeResult::timeMicros).containsExactly(12.0, 20.0);
    }

    @Test
    void partialReportAfterTheRanksFinalReportIsIgnored() {
        List<JobAssignment> received = runningOnTwoRanks();

        http.reportOk(group, job.jobId(), new RankReport(0, instance(0), received.get(0).generation(), true, null,
                results(10, 20, 40)));
        http.reportOk(group, job.jobId(), partial(0, received.get(0), 999));
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12));
        Job running = http.getOk(group, job.jobId());
        http.reportOk(group, job.jobId(), new RankReport(1, instance(1), received.get(1).generation(), true, null,
                results(12, 18, 30)));
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 999, 999));
        Job done = http.getOk(group, job.jobId());

        assertThat(running.results()).singleElement().satisfies(r ->
                assertThat(r.rankTimesMicros()).as("rank 0's final time, not its late partial").containsExactly(10.0, 12.0));
        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.results()).extracting(SizeResult::timeMicros).containsExactly(12.0, 20.0, 40.0);
    }

    @Test
    void partialReportWithSizesOutsideTheSweepAnswers400() {
        JobAssignment received = runningOnTwoRanks().getFirst();

        var tooMany = http.report(group, job.jobId(), partial(0, received, 1, 2, 3, 4));
        var wrongSize = http.report(group, job.jobId(), new RankReport(0, instance(0), received.generation(), true,
                null, List.of(new RankSizeResult(3, 1, 1, 0)), true, null));

        assertThat(tooMany.statusCode()).isEqualTo(400);
        assertThat(http.detail(tooMany)).startsWith("results:").contains("rank 0");
        assertThat(wrongSize.statusCode()).isEqualTo(400);
        assertThat(http.detail(wrongSize)).startsWith("results[0].bytes:");
    }

    @Test
    void failedRankKeepsTheRowsEveryRankMeasuredInTheStoredJob() {
        List<JobAssignment> received = runningOnTwoRanks();

        http.reportOk(group, job.jobId(), partial(0, received.get(0), 10));
        http.reportOk(group, job.jobId(), new RankReport(1, instance(1), received.get(1).generation(), false,
                "peer rank 0 closed the connection", results(12, 18)));

        Job failed = http.getOk(group, job.jobId());
        Job listed = http.listOk(group).getFirst();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank 1").contains("peer rank 0 closed the connection");
        assertThat(failed.results()).singleElement().satisfies(r -> assertThat(r.timeMicros()).isEqualTo(12.0));
        assertThat(listed.results()).as("the history keeps them").isEqualTo(failed.results());
    }

    @Test
    void failedGenerationKeepsTheRowsEveryRankMeasured() {
        List<JobAssignment> received = runningOnTwoRanks();
        http.reportOk(group, job.jobId(), partial(0, received.get(0), 10, 20));
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12, 18));

        directory.fail(group, "rank 1 missed its heartbeats");

        Job failed = http.getOk(group, job.jobId());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank 1 missed its heartbeats");
        assertThat(failed.results()).extracting(SizeResult::bytes).containsExactly(MIB, 2 * MIB);
    }

    @Test
    void jobPastItsDeadlineKeepsTheRowsEveryRankMeasuredAndEndsTheLongPoll() throws Exception {
        directory.form(group, 2);
        Job job = http.submitOk(group, Map.of("minBytes", MIB, "maxBytes", 4 * MIB, "stepFactor", 2,
                "timeoutSeconds", 1));
        List<JobAssignment> received = everyRankReceives(2, 0);
        http.reportOk(group, job.jobId(), partial(0, received.get(0), 10, 20));
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12));

        Job failed = http.watchOk(group, job.jobId(), "wait=20&state=running&rows=1");

        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("timed out after 1 s");
        assertThat(failed.results()).singleElement().satisfies(r -> assertThat(r.bytes()).isEqualTo(MIB));
        assertThat(http.getOk(group, job.jobId()).results()).as("as stored").isEqualTo(failed.results());
    }

    @Test
    void jobLongPollEndsWhenARowAppearsOrTheStateChanges() throws Exception {
        directory.form(group, 2);
        Job job = http.submitOk(group, Map.of("minBytes", MIB, "maxBytes", 4 * MIB, "stepFactor", 2));
        Job queuedAnswer = http.watchOk(group, job.jobId(), "wait=0");
        List<JobAssignment> received = everyRankReceives(2, 0);
        Job stateChanged = http.watchOk(group, job.jobId(), "wait=20&state=queued");
        CompletableFuture<Job> firstRow = CompletableFuture.supplyAsync(
                () -> http.watchOk(group, job.jobId(), "wait=20&state=running&rows=0"));

        http.reportOk(group, job.jobId(), partial(0, received.get(0), 10));
        Thread.sleep(300);
        boolean doneBeforeEveryRankMeasured = firstRow.isDone();
        http.reportOk(group, job.jobId(), partial(1, received.get(1), 12));
        Job row = firstRow.get(10, TimeUnit.SECONDS);
        long start = System.nanoTime();
        Job unchanged = http.watchOk(group, job.jobId(), "wait=1&state=running&rows=1");
        long waitedMillis = (System.nanoTime() - start) / 1_000_000;

        assertThat(queuedAnswer.state()).isEqualTo(JobState.QUEUED);
        assertThat(stateChanged.state()).as("answered at once: the job is no longer queued").isEqualTo(JobState.RUNNING);
        assertThat(doneBeforeEveryRankMeasured).isFalse();
        assertThat(row.results()).hasSize(1);
        assertThat(unchanged.results()).hasSize(1);
        assertThat(waitedMillis).as("nothing changed: the wait runs out").isGreaterThanOrEqualTo(900);
    }

    @Test
    void jobLongPollEndsWhenTheJobEndsAndRefusesABadState() throws Exception {
        List<JobAssignment> received = runningOnTwoRanks();
        CompletableFuture<Job> ended = CompletableFuture.supplyAsync(
                () -> http.watchOk(group, job.jobId(), "wait=20&state=running&rows=0"));
        Thread.sleep(200);

        http.reportOk(group, job.jobId(), new RankReport(0, instance(0), received.get(0).generation(), false,
                "out of memory", null));

        assertThat(ended.get(10, TimeUnit.SECONDS).state()).isEqualTo(JobState.FAILED);
        var bad = http.watch(group, job.jobId(), "wait=1&state=sleeping");
        assertThat(bad.statusCode()).isEqualTo(400);
        assertThat(http.detail(bad)).startsWith("state:");
        assertThat(http.watch(group, job.jobId(), "wait=1&rows=-1").statusCode()).isEqualTo(400);
    }
}
