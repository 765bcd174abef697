package io.allsum.worker.it;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rank killed (SIGKILL) in the middle of a job: the job ends FAILED naming that rank, the survivors give up the
 * generation within their deadlines, and once the rank is restarted the group re-forms as generation 2 and runs
 * a new job correctly.
 */
class KilledRankIT {

    static final String GROUP = "kill-3";
    static final int WORLD_SIZE = 3;
    static final int VICTIM = 2;
    static final Duration DEADLINE = Duration.ofSeconds(90);

    @AutoClose
    static ItCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        cluster = ItCluster.start("killed-rank");
    }

    @Test
    void killedRankFailsTheJobNamingItAndTheGroupReformsAsGeneration2() throws Exception {
        List<ItCluster.Worker> workers = cluster.startGroup(GROUP, WORLD_SIZE);

        // Long enough that it is certainly still running when the rank dies: 1 MiB all-sums, many iterations.
        JobSpec endless = JobSpec.builder().size(1L << 20).iterations(1_000_000, 1).timeoutSeconds(600)
                .build();
        Job running = cluster.client().submitJob(GROUP, endless);
        cluster.awaitJob(GROUP, running.jobId(), j -> j.state() == JobState.RUNNING, DEADLINE);
        // Give every rank time to be inside its collectives, not merely dispatched.
        Thread.sleep(1000);

        workers.get(VICTIM).process().kill();

        Job failed = cluster.awaitJob(GROUP, running.jobId(), j -> j.state().isFinal(), DEADLINE);
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank " + VICTIM);

        // Each survivor gave up generation 1 and says why, naming the dead rank.
        for (int rank = 0; rank < WORLD_SIZE; rank++) {
            if (rank == VICTIM) {
                continue;
            }
            ItCluster.Worker survivor = workers.get(rank);
            assertThat(survivor.process().process().isAlive()).as("rank %d is alive", rank).isTrue();
            assertThat(survivor.process().output()).as("rank %d log", rank).containsPattern(
                    "job " + running.jobId() + " failed: .*rank " + VICTIM);
        }

        ItCluster.Worker restarted = cluster.restartWorker(GROUP, VICTIM, WORLD_SIZE, 2);
        for (int rank = 0; rank < WORLD_SIZE; rank++) {
            cluster.awaitReady(rank == VICTIM ? restarted : workers.get(rank));
        }
        GroupStatus status = cluster.client().status(GROUP);
        assertThat(status.generation()).isEqualTo(2);
        assertThat(status.state()).isEqualTo(GenerationState.COMPLETE);

        Job after = cluster.client().submitJob(GROUP, JobSpec.builder().sizes(4L, 4096L).stepFactor(4)
                .iterations(2, 1).timeoutSeconds(60).build());
        Job done = cluster.awaitJob(GROUP, after.jobId(), j -> j.state().isFinal(), DEADLINE);
        assertThat(done.state()).as(done.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.generation()).isEqualTo(2L);
        assertThat(done.results()).isNotEmpty().allSatisfy(r -> assertThat(r.wrongElements()).isZero());

        HttpResponse<String> health = cluster.get(restarted.uri("/actuator/health")); // details: not on the open probe
        assertThat(health.body()).contains("\"generation\":2");
    }
}
