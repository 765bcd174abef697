package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankSizeResult;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The workers' long-poll: waiting, ordering under concurrent submissions, membership. */
class JobDispatchHttpTest extends JobsHttpTestBase {

    @Autowired
    MeterRegistry meters;

    @Test
    void longPollAnswers204WhenNothingCameThen200WithTheNextJob() throws Exception {
        directory.form(group, 1);

        HttpResponse<String> empty = http.next(group, 0, instance(0), 0, 1);
        CompletableFuture<Optional<JobAssignment>> waiting =
                CompletableFuture.supplyAsync(() -> http.nextOk(group, 0, instance(0), 0, 30));
        Job job = http.submitOk(group, JobSpec.allSum(64));

        assertThat(empty.statusCode()).isEqualTo(204);
        Optional<JobAssignment> assignment = waiting.get(60, TimeUnit.SECONDS);
        assertThat(assignment).hasValueSatisfying(a -> {
            assertThat(a.jobId()).isEqualTo(job.jobId());
            assertThat(a.seq()).isEqualTo(1);
            assertThat(a.generation()).isEqualTo(1);
            assertThat(a.spec()).isEqualTo(JobSpec.allSum(64));
        });
        assertThat(http.getOk(group, job.jobId()).state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void pollDuringJoiningGetsTheQueuedJobOnceTheGenerationCompletes() throws Exception {
        directory.joining(group, 1);
        Job job = http.submitOk(group, JobSpec.allSum(8));
        CompletableFuture<Optional<JobAssignment>> waiting =
                CompletableFuture.supplyAsync(() -> http.nextOk(group, 0, instance(0), 0, 30));

        directory.complete(group);

        assertThat(waiting.get(60, TimeUnit.SECONDS)).hasValueSatisfying(a -> assertThat(a.jobId()).isEqualTo(job.jobId()));
    }

    @Test
    void runningJobIsHandedAgainToARankThatPollsWithTheSameAfter() {
        directory.form(group, 2);
        Job job = http.submitOk(group, JobSpec.allSum(8));

        JobAssignment first = http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();
        JobAssignment again = http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();

        assertThat(again).isEqualTo(first);
        assertThat(first.jobId()).isEqualTo(job.jobId());
        assertThat(http.next(group, 0, instance(0), first.seq(), 0).statusCode()).isEqualTo(204);
    }

    @Test
    void dispatchLatencyIsRecordedOnceTheLastRankReceivedTheJob() {
        directory.form(group, 3);
        long timedBefore = meters.get(JobMetrics.DISPATCH).timer().count();
        Job job = http.submitOk(group, JobSpec.allSum(8));

        http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();
        http.nextOk(group, 1, instance(1), 0, 5).orElseThrow();
        Job partly = http.getOk(group, job.jobId());
        http.nextOk(group, 2, instance(2), 0, 5).orElseThrow();
        Job fully = http.getOk(group, job.jobId());

        assertThat(partly.dispatchedAt()).isNotNull();
        assertThat(partly.dispatchLatencyMicros()).isNull();
        assertThat(fully.dispatchLatencyMicros()).isPositive();
        assertThat(meters.get(JobMetrics.DISPATCH).timer().count()).isEqualTo(timedBefore + 1);
    }

    @Test
    void everyRankReceivesConcurrentSubmissionsInTheSameStrictlyIncreasingOrder() throws Exception {
        int ranks = 4;
        int submitters = 4;
        int jobsEach = 10;
        int total = submitters * jobsEach;
        directory.form(group, ranks);
        double submittedBefore = meters.get(JobMetrics.JOBS).tag("state", "submitted").counter().count();
        double succeededBefore = meters.get(JobMetrics.JOBS).tag("state", "succeeded").counter().count();

        ExecutorService pool = Executors.newFixedThreadPool(ranks + submitters);
        try {
            List<Future<List<Long>>> received = new ArrayList<>();
            for (int rank = 0; rank < ranks; rank++) {
                int r = rank;
                received.add(pool.submit(() -> runRank(r, total)));
            }
            List<Future<?>> submitted = new ArrayList<>();
            for (int s = 0; s < submitters; s++) {
                int size = 8 << s;
                submitted.add(pool.submit(() -> {
                    for (int j = 0; j < jobsEach; j++) {
                        http.submitOk(group, JobSpec.allSum(size));
                    }
                }));
            }
            for (Future<?> f : submitted) {
                f.get(60, TimeUnit.SECONDS);
            }
            List<List<Long>> orders = new ArrayList<>();
            for (Future<List<Long>> f : received) {
                orders.add(f.get(120, TimeUnit.SECONDS));
            }

            List<Long> expected = http.listOk(group).stream().map(Job::seq).toList();
            assertThat(expected).hasSize(total).isSorted().doesNotHaveDuplicates();
            assertThat(orders).allSatisfy(order -> assertThat(order).isEqualTo(expected));
        } finally {
            pool.shutdownNow();
        }
        List<Job> jobs = http.listOk(group);
        assertThat(jobs).allSatisfy(j -> {
            assertThat(j.state()).isEqualTo(JobState.SUCCEEDED);
            assertThat(j.reportedRanks()).containsExactly(0, 1, 2, 3);
            assertThat(j.dispatchLatencyMicros()).isNotNull();
        });
        assertThat(meters.get(JobMetrics.JOBS).tag("state", "submitted").counter().count())
                .isEqualTo(submittedBefore + total);
        assertThat(meters.get(JobMetrics.JOBS).tag("state", "succeeded").counter().count())
                .isEqualTo(succeededBefore + total);
    }

    /** One simulated worker: long-polls after the last seq it got, runs nothing, reports success; returns its order. */
    private List<Long> runRank(int rank, int expectedJobs) {
        List<Long> order = new ArrayList<>();
        long after = 0;
        long deadline = System.nanoTime() + EVENTUALLY.toNanos();
        while (order.size() < expectedJobs && System.nanoTime() - deadline < 0) {
            Optional<JobAssignment> next = http.nextOk(group, rank, instance(rank), after, 5);
            if (next.isEmpty()) {
                continue;
            }
            JobAssignment job = next.get();
            order.add(job.seq());
            after = job.seq();
            long bytes = job.spec().minBytes();
            http.reportOk(group, job.jobId(), success(rank, job,
                    List.of(new RankSizeResult(bytes, bytes / 4, 10.0 + rank, 0))));
        }
        return order;
    }

    @Test
    void pollFromANonMemberAnswers409() {
        directory.form(group, 2);

        HttpResponse<String> response = http.next(group, 1, "impostor", 0, 1);

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(http.detail(response)).contains("rank 1").contains("impostor").contains("not a member");
    }

    @Test
    void waitingPollIsAnswered409AsSoonAsItsGenerationFails() throws Exception {
        directory.form(group, 2);
        CompletableFuture<HttpResponse<String>> poll =
                CompletableFuture.supplyAsync(() -> http.next(group, 0, instance(0), 0, 60));
        Thread.sleep(300); // let the poll park; were it answered early, it would be a 204 or a 200

        directory.fail(group, "rank 1 missed its heartbeats");

        // Before the fix, the poll slept through its whole 60 s wait and answered 204.
        HttpResponse<String> answer = poll.get(30, TimeUnit.SECONDS);
        assertThat(answer.statusCode()).isEqualTo(409);
        assertThat(http.detail(answer)).contains("rank 1 missed its heartbeats").contains("join again");
    }

    @Test
    void pollOfAWorkerLeftBehindByANewGenerationAnswers409() {
        directory.form(group, 2);
        String oldInstance = instance(0);
        directory.fail(group, "rank 1 left");
        directory.joining(group, 2); // a new generation forms; the poller is not in it

        HttpResponse<String> response = http.next(group, 0, oldInstance + "-gone", 0, 5);

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(http.detail(response)).contains("join");
    }

    @Test
    void pollOnAnUnknownGroupAnswers404AndBadParametersAnswer400() {
        assertThat(http.next(group, 0, "x", 0, 1).statusCode()).isEqualTo(404);
        directory.form(group, 1);
        HttpResponse<String> negativeAfter = http.next(group, 0, instance(0), -1, 1);
        HttpResponse<String> negativeWait = http.next(group, 0, instance(0), 0, -1);

        assertThat(negativeAfter.statusCode()).isEqualTo(400);
        assertThat(http.detail(negativeAfter)).startsWith("after:");
        assertThat(negativeWait.statusCode()).isEqualTo(400);
        assertThat(http.detail(negativeWait)).startsWith("wait:");
    }

    @Test
    void waitingPollOfARemovedGroupAnswers404() throws Exception {
        directory.form(group, 1);
        String rank0 = instance(0);
        CompletableFuture<HttpResponse<String>> waiting =
                CompletableFuture.supplyAsync(() -> http.next(group, 0, rank0, 0, 30));

        directory.remove(group, "closed by the test");

        assertThat(waiting.get(60, TimeUnit.SECONDS).statusCode()).isEqualTo(404);
    }
}
