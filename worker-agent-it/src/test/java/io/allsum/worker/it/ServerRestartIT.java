package io.allsum.worker.it;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.MemberStatus;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rendezvous server is killed (SIGKILL) and a new one starts on the same port and data directory.
 * A ring group at generation 5: the workers see the new epoch, re-join reporting generation 5, the group re-forms
 * as generation 6, and a job submitted to the new server runs and verifies. A group in the middle of a job: the
 * job is kept as INTERRUPTED with its reason, the history before it is intact, and the next job succeeds.
 */
class ServerRestartIT {

    static final String GROUP = "restart-2";
    static final String MID_JOB_GROUP = "restart-mid-job";
    static final int WORLD_SIZE = 2;
    static final Duration DEADLINE = Duration.ofSeconds(90);

    @AutoClose
    static ItCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        // 4 injected failures must not use up the workers' restart budget (failures within a window).
        cluster = ItCluster.start("server-restart", null, ItCluster.workerTiming("--allsum.worker.max-restarts=40"));
    }

    @Test
    void aGroupAtGeneration5SurvivesAServerRestartAndRunsAJobAsGeneration6() throws Exception {
        cluster.startGroup(GROUP, WORLD_SIZE);
        awaitComplete(1);
        for (long generation = 1; generation < 5; generation++) {
            failGeneration(generation);
            awaitComplete(generation + 1);
            assertThat(runSmallJob().state()).isEqualTo(JobState.SUCCEEDED);
        }
        String oldEpoch = cluster.client().status(GROUP).epoch();

        cluster.restartServer(2);
        GroupStatus reformed = awaitComplete(6);

        assertThat(reformed.epoch()).isNotNull().isNotEqualTo(oldEpoch);
        Job done = runSmallJob();
        assertThat(done.state()).as(done.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.generation()).isEqualTo(6L);
        assertThat(done.results()).isNotEmpty().allSatisfy(r -> assertThat(r.wrongElements()).isZero());
        for (int rank = 0; rank < WORLD_SIZE; rank++) {
            assertThat(cluster.worker(GROUP, rank).process().output()).contains("the rendezvous server restarted");
        }
    }

    @Test
    void aJobRunningWhenTheServerIsKilledIsKeptAsInterruptedAndTheNextJobSucceeds() throws Exception {
        cluster.startGroup(MID_JOB_GROUP, WORLD_SIZE);
        awaitComplete(MID_JOB_GROUP, 1);
        Job before = awaitJob(MID_JOB_GROUP, cluster.client().submitJob(MID_JOB_GROUP, smallSpec()).jobId(),
                j -> j.state().isFinal());
        assertThat(before.state()).isEqualTo(JobState.SUCCEEDED);
        // 64 MiB x 100000 iterations: still running when the server dies.
        Job longJob = cluster.client().submitJob(MID_JOB_GROUP, JobSpec.builder().size(64L << 20)
                .iterations(100_000, 0).timeoutSeconds(3600).build());
        awaitJob(MID_JOB_GROUP, longJob.jobId(), j -> j.state() == JobState.RUNNING);

        long killed = System.nanoTime();
        cluster.restartServer(3);
        Job interrupted = cluster.client().job(MID_JOB_GROUP, longJob.jobId());
        Job kept = cluster.client().job(MID_JOB_GROUP, before.jobId());
        awaitReformed(MID_JOB_GROUP);
        Job next = awaitJob(MID_JOB_GROUP, cluster.client().submitJob(MID_JOB_GROUP, smallSpec()).jobId(),
                j -> j.state().isFinal());
        double seconds = (System.nanoTime() - killed) / 1e9;
        System.out.printf("server kill -9 mid-job -> next job %s: %.1f s%n", next.state(), seconds);

        assertThat(interrupted.state()).isEqualTo(JobState.INTERRUPTED);
        assertThat(interrupted.failureReason()).isNotBlank();
        assertThat(kept.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(kept.results()).isNotEmpty();
        assertThat(next.state()).as(next.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(seconds).as("next job done after the kill, in s (goal 30)").isLessThan(90);
    }

    /** Until the group is complete again on the new server, in whatever generation it reached. */
    private static void awaitReformed(String group) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            try {
                GroupStatus status = cluster.client().status(group);
                if (status.generation() > 1 && status.state() == GenerationState.COMPLETE) {
                    awaitComplete(group, status.generation());
                    return;
                }
            } catch (RuntimeException notYet) {
                // no such group until a worker joins the new server
            }
            Thread.sleep(100);
        }
        throw new AssertionError("group " + group + " did not re-form within " + DEADLINE);
    }

    private static JobSpec smallSpec() {
        return JobSpec.builder().sizes(4L, 4096L).stepFactor(4).iterations(2, 1).timeoutSeconds(60).build();
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
        return awaitComplete(GROUP, generation);
    }

    private static GroupStatus awaitComplete(String group, long generation) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        GroupStatus status = null;
        while (System.nanoTime() < end) {
            try {
                status = cluster.client().status(group);
                if (status.generation() == generation && status.state() == GenerationState.COMPLETE) {
                    for (int rank = 0; rank < WORLD_SIZE; rank++) {
                        cluster.awaitReady(cluster.worker(group, rank));
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
        Job submitted = cluster.client().submitJob(GROUP, smallSpec());
        return awaitJob(GROUP, submitted.jobId(), j -> j.state().isFinal());
    }

    private static Job awaitJob(String group, String jobId, Predicate<Job> condition) throws InterruptedException {
        return cluster.awaitJob(group, jobId, condition, DEADLINE);
    }
}
