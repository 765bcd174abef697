package io.allsum.worker.it;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.MemberStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A ring group at generation 15 loses its server (SIGKILL); a new server starts on the same port. The workers see
 * the new epoch, re-join reporting generation 15, the group re-forms as generation 16 (the ring accepts only newer
 * generations), and a job submitted to the new server runs and verifies.
 */
class ServerRestartIT {

    static final String GROUP = "restart-2";
    static final int WORLD_SIZE = 2;
    static final Duration DEADLINE = Duration.ofSeconds(90);

    static LocalCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        cluster = LocalCluster.start("server-restart");
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aGroupAtGeneration15SurvivesAServerRestartAndRunsAJobAsGeneration16() throws Exception {
        cluster.startGroup(GROUP, WORLD_SIZE);
        awaitComplete(1);
        for (long generation = 1; generation < 15; generation++) {
            failGeneration(generation);
            awaitComplete(generation + 1);
            // A job that succeeds resets each worker's restart count, so 14 failures do not exhaust it.
            assertThat(runSmallJob().state()).isEqualTo(JobState.SUCCEEDED);
        }
        String oldEpoch = cluster.client().status(GROUP).epoch();

        cluster.restartServer(2);
        GroupStatus reformed = awaitComplete(16);

        assertThat(reformed.epoch()).isNotNull().isNotEqualTo(oldEpoch);
        Job done = runSmallJob();
        assertThat(done.state()).as(done.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.generation()).isEqualTo(16L);
        assertThat(done.results()).isNotEmpty().allSatisfy(r -> assertThat(r.wrongElements()).isZero());
        for (int rank = 0; rank < WORLD_SIZE; rank++) {
            assertThat(cluster.worker(GROUP, rank).process().output()).contains("the rendezvous server restarted");
        }
    }

    /** Rank 0 (by its instance id) reports rank 1 failed, as a worker whose collective broke would. */
    private static void failGeneration(long generation) throws InterruptedException {
        MemberStatus rank0 = cluster.client().status(GROUP).members().getFirst();
        HttpResponse<String> answer = cluster.postJson(cluster.serverUri().resolve("/rendezvous/" + GROUP
                + "/failures"), "{\"reporterRank\":0,\"instanceId\":\"" + rank0.instanceId() + "\",\"generation\":"
                + generation + ",\"failedRank\":1,\"reason\":\"fault injected by ServerRestartIT\"}");
        assertThat(answer).isNotNull();
        assertThat(answer.statusCode()).isEqualTo(200);
    }

    private static GroupStatus awaitComplete(long generation) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        GroupStatus status = null;
        while (System.nanoTime() < end) {
            try {
                status = cluster.client().status(GROUP);
                if (status.generation() == generation && status.state() == GenerationState.COMPLETE) {
                    for (int rank = 0; rank < WORLD_SIZE; rank++) {
                        cluster.awaitReady(cluster.worker(GROUP, rank));
                    }
                    return status;
                }
            } catch (RuntimeException notYet) {
                // the new server has no such group until a worker joins it
            }
            Thread.sleep(100);
        }
        throw new AssertionError("generation " + generation + " not complete within " + DEADLINE + ": " + status);
    }

    private static Job runSmallJob() throws InterruptedException {
        Job submitted = cluster.client().submitJob(GROUP, new JobSpec(CollectiveOp.ALL_REDUCE, DataType.FLOAT32,
                ReduceOp.SUM, 0, 4L, 4096L, 4, 2, 1, false, true, 60));
        return awaitJob(submitted.jobId(), j -> j.state().isFinal());
    }

    private static Job awaitJob(String jobId, Predicate<Job> condition) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        Job job = null;
        while (System.nanoTime() < end) {
            job = cluster.client().job(GROUP, jobId);
            if (condition.test(job)) {
                return job;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job " + jobId + " did not finish within " + DEADLINE + ": " + job);
    }
}
