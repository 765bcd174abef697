package io.allsum.worker.it;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A job larger than what the ring workers may hold (allsum.worker.job-memory-limit) fails on every rank before
 * any buffer is allocated, naming the limit; the workers live on in the same generation and run the next job.
 */
class JobMemoryIT {

    @AutoClose
    static ItCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        List<String> timing = new ArrayList<>(ItCluster.WORKER_TIMING);
        timing.add("--allsum.worker.job-memory-limit=1MB");
        cluster = ItCluster.start("job-memory", null, timing);
    }

    @Test
    void aJobAboveTheLimitFailsCleanlyAndTheNextJobRunsOnTheSameWorkers() throws Exception {
        String group = "memory";
        cluster.startGroup(group, 2);

        Job tooLarge = cluster.client().submitJob(group, JobSpec.allSum(4L << 20));
        Job failed = cluster.awaitJob(group, tooLarge.jobId(), j -> j.state().isFinal(), Duration.ofSeconds(60));
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("needs").contains("allsum.worker.job-memory-limit");

        Job small = cluster.client().submitJob(group, JobSpec.allSum(8192));
        Job done = cluster.awaitJob(group, small.jobId(), j -> j.state().isFinal(), Duration.ofSeconds(60));
        assertThat(done.state()).as(done.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.generation()).isEqualTo(1L);
        GroupStatus status = cluster.client().status(group);
        assertThat(status.generation()).isEqualTo(1);
    }
}
