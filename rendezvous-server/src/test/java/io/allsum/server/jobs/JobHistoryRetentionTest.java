package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

import javax.sql.DataSource;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The history's retention, on a real (in-memory H2) database migrated like the server's. */
class JobHistoryRetentionTest {

    private final DataSource database = TestJobStores.freshDatabase();
    private final JobStore store = new JobStore(JdbcClient.create(database));
    private final FakeGroupDirectory directory = new FakeGroupDirectory(event -> {
    });

    private JobService service(int history, Duration maxAge) {
        JobsProperties properties = JobsSettings.with(Map.of("history", Integer.toString(history),
                "max-age", maxAge.toMillis() + "ms"));
        return new JobService(directory, properties, new SimpleMeterRegistry(), store,
                new StartupGrace(Duration.ZERO));
    }

    private List<Job> cancelledJobs(JobService jobs, String group, int count) {
        return java.util.stream.IntStream.range(0, count)
                .mapToObj(i -> jobs.cancel(group, jobs.submit(group, JobSpec.allSum(8)).jobId())).toList();
    }

    @Test
    void cleanupKeepsTheNewestJobsOfEachGroupWhenTheHistoryLimitIsLowered() {
        directory.form("a", 1);
        directory.form("b", 1);
        JobService generous = service(10, Duration.ofDays(1));
        List<Job> a = cancelledJobs(generous, "a", 5);
        cancelledJobs(generous, "b", 2);

        JobService strict = service(3, Duration.ofDays(1));
        int deleted = strict.cleanUp();

        assertThat(deleted).isEqualTo(2);
        assertThat(strict.list("a")).extracting(Job::jobId)
                .containsExactly(a.get(2).jobId(), a.get(3).jobId(), a.get(4).jobId());
        assertThat(strict.list("b")).hasSize(2);
    }

    @Test
    void cleanupDeletesEndedJobsOlderThanMaxAgeButNeverUnfinishedOnes() {
        directory.form("old", 1);
        JobService jobs = service(100, Duration.ofHours(1));
        List<Job> ended = cancelledJobs(jobs, "old", 2);
        Job queued = jobs.submit("old", JobSpec.allSum(8));
        JdbcClient.create(database).sql("UPDATE job SET finished_at = ?, submitted_at = ? WHERE job_id = ?")
                .param(OffsetDateTime.now(ZoneOffset.UTC).minusHours(2))
                .param(OffsetDateTime.now(ZoneOffset.UTC).minusHours(3))
                .param(ended.getFirst().jobId()).update();

        assertThat(jobs.cleanUp()).isEqualTo(1);

        assertThat(jobs.list("old")).extracting(Job::jobId).containsExactly(ended.get(1).jobId(), queued.jobId());
        assertThat(jobs.get("old", queued.jobId()).state()).isEqualTo(JobState.QUEUED);
    }

    @Test
    void numberingContinuesAfterRetentionDeletedEveryJobOfAGroup() {
        directory.form("gone", 1);
        JobService jobs = service(100, Duration.ofHours(1));
        List<Job> ended = cancelledJobs(jobs, "gone", 3);
        JdbcClient.create(database).sql("UPDATE job SET finished_at = ?")
                .param(OffsetDateTime.now(ZoneOffset.UTC).minusHours(2)).update();
        jobs.cleanUp();

        JobService restarted = service(100, Duration.ofHours(1));

        assertThat(restarted.list("gone")).isEmpty();
        assertThat(restarted.submit("gone", JobSpec.allSum(8)).seq()).isEqualTo(ended.getLast().seq() + 1);
    }
}
