package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class JobMetricsTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final JobMetrics metrics = new JobMetrics(registry, state -> 0);

    @Test
    void everyFinalStateHasAZeroDurationSeriesBeforeAnyJobEnds() {
        assertThat(registry.get(JobMetrics.DURATION).timers())
                .extracting(t -> t.getId().getTag("state"))
                .containsExactlyInAnyOrder("succeeded", "failed", "cancelled", "interrupted");
        assertThat(registry.get(JobMetrics.DURATION).timers()).allSatisfy(t -> assertThat(t.count()).isZero());
    }

    @Test
    void aFinishedJobIsCountedAndTimedUnderItsFinalStateOnly() {
        metrics.finished(JobState.FAILED, Duration.ofMillis(1500));

        Timer failed = registry.get(JobMetrics.DURATION).tag("state", "failed").timer();
        assertThat(failed.count()).isEqualTo(1);
        assertThat(failed.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(1500);
        assertThat(registry.get(JobMetrics.DURATION).tag("state", "succeeded").timer().count()).isZero();
        assertThat(registry.get(JobMetrics.JOBS).tag("state", "failed").counter().count()).isEqualTo(1);
    }

    @Test
    void jobsARestartInterruptedAreCountedButNotTimed() {
        metrics.finished(JobState.INTERRUPTED, 3);

        assertThat(registry.get(JobMetrics.JOBS).tag("state", "interrupted").counter().count()).isEqualTo(3);
        assertThat(registry.get(JobMetrics.DURATION).tag("state", "interrupted").timer().count()).isZero();
    }

    @Test
    void aCancelledJobIsTimedFromItsSubmission() throws InterruptedException {
        GroupJobs jobs = new GroupJobs("g", TestJobStores.inMemory(), metrics, Clock.systemUTC());
        Job job = jobs.submit(JobSpec.allSum(8), 10);
        Thread.sleep(20);

        jobs.cancel(job.jobId());

        Timer cancelled = registry.get(JobMetrics.DURATION).tag("state", "cancelled").timer();
        assertThat(cancelled.count()).isEqualTo(1);
        assertThat(cancelled.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(20);
    }
}
