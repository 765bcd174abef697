package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Clock;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

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
}
