package io.allsum.server.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Submit, list, get and cancel over real HTTP, and the answers to bad requests. */
class JobApiHttpTest extends JobsHttpTestBase {

    @Autowired
    MeterRegistry meters;

    @Test
    void submitAnswers201WithLocationAndAQueuedJobWithDefaults() {
        directory.form(group, 4);

        HttpResponse<String> response = http.submit(group, Map.of());

        assertThat(response.statusCode()).isEqualTo(201);
        Job job = http.read(response, Job.class);
        assertThat(response.headers().firstValue("Location")).hasValueSatisfying(
                location -> assertThat(location).endsWith("/rendezvous/" + group + "/jobs/" + job.jobId()));
        assertThat(job.state()).isEqualTo(JobState.QUEUED);
        assertThat(job.group()).isEqualTo(group);
        assertThat(job.seq()).isEqualTo(1);
        assertThat(job.generation()).isNull();
        assertThat(job.spec()).isEqualTo(JobSpec.builder().build());
        assertThat(job.submittedAt()).isNotNull();
    }

    @Test
    void activeGaugeCountsQueuedAndRunningJobs() {
        directory.form(group, 2);
        double queuedBefore = meters.get(JobMetrics.ACTIVE).tag("state", "queued").gauge().value();
        double runningBefore = meters.get(JobMetrics.ACTIVE).tag("state", "running").gauge().value();

        http.submitOk(group, JobSpec.allSum(8));
        http.submitOk(group, JobSpec.allSum(8));
        http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();

        assertThat(meters.get(JobMetrics.ACTIVE).tag("state", "queued").gauge().value()).isEqualTo(queuedBefore + 1);
        assertThat(meters.get(JobMetrics.ACTIVE).tag("state", "running").gauge().value()).isEqualTo(runningBefore + 1);
    }

    @Test
    void listShowsJobsOldestFirstAndGetShowsOne() {
        directory.form(group, 2);
        Job first = http.submitOk(group, JobSpec.allSum(8));
        Job second = http.submitOk(group, JobSpec.allSum(16));
        Job third = http.submitOk(group, JobSpec.allSum(32));

        assertThat(http.listOk(group)).extracting(Job::jobId).containsExactly(first.jobId(), second.jobId(), third.jobId());
        assertThat(http.listOk(group)).extracting(Job::seq).containsExactly(1L, 2L, 3L);
        assertThat(http.getOk(group, second.jobId()).spec().minBytes()).isEqualTo(16);
    }

    @Test
    void cancelTurnsAQueuedJobCancelledAndAnswers409WhenItAlreadyEnded() {
        directory.form(group, 2);
        Job job = http.submitOk(group, JobSpec.allSum(8));

        HttpResponse<String> cancelled = http.cancel(group, job.jobId());
        HttpResponse<String> again = http.cancel(group, job.jobId());

        assertThat(cancelled.statusCode()).isEqualTo(200);
        assertThat(http.read(cancelled, Job.class).state()).isEqualTo(JobState.CANCELLED);
        assertThat(http.getOk(group, job.jobId()).finishedAt()).isNotNull();
        assertThat(again.statusCode()).isEqualTo(409);
        assertThat(http.detail(again)).contains("already ended").contains("cancelled");
    }

    @Test
    void cancelOfARunningJobAnswers409NamingTheRanksAndTheDeadline() {
        directory.form(group, 4);
        Job job = http.submitOk(group, JobSpec.allSum(8));
        http.nextOk(group, 0, instance(0), 0, 5).orElseThrow();
        http.nextOk(group, 2, instance(2), 0, 5).orElseThrow();

        HttpResponse<String> response = http.cancel(group, job.jobId());

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(http.detail(response)).contains("running").contains("ranks [0, 2]").contains("deadline");
        assertThat(http.getOk(group, job.jobId()).state()).isEqualTo(JobState.RUNNING);
    }

    @Test
    void cancelledJobIsNeverHandedToARank() {
        directory.form(group, 1);
        Job cancelled = http.submitOk(group, JobSpec.allSum(8));
        Job kept = http.submitOk(group, JobSpec.allSum(16));
        http.cancel(group, cancelled.jobId());

        assertThat(http.nextOk(group, 0, instance(0), 0, 5)).hasValueSatisfying(
                a -> assertThat(a.jobId()).isEqualTo(kept.jobId()));
    }

    @Test
    void submitToAnUnknownGroupAnswers404() {
        HttpResponse<String> response = http.submit(group, JobSpec.allSum(8));

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(http.detail(response)).contains(group).contains("unknown");
    }

    @Test
    void listOfAnUnknownGroupAnswers404AndOfANewGroupIsEmpty() {
        HttpResponse<String> unknown = http.list(group);
        directory.form(group, 2);

        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(http.listOk(group)).isEmpty();
    }

    @Test
    void getOfAnUnknownJobAnswers404() {
        directory.form(group, 2);
        http.submitOk(group, JobSpec.allSum(8));

        HttpResponse<String> response = http.get(group, "no-such-job");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(http.detail(response)).contains("no-such-job");
    }

    @Test
    void invalidSpecsAnswer400NamingTheField() {
        directory.form(group, 4);

        Map<Map<String, Object>, String> cases = Map.of(
                Map.of("minBytes", -1), "minBytes",
                Map.of("minBytes", 64, "maxBytes", 8), "maxBytes",
                Map.of("stepFactor", 0), "stepFactor",
                Map.of("iterations", 0), "iterations",
                Map.of("warmupIterations", -1), "warmupIterations",
                Map.of("timeoutSeconds", 3601), "timeoutSeconds",
                Map.of("op", "broadcast", "root", 4), "root",
                Map.of("op", "all_gather", "redop", "prod"), "redop",
                Map.of("dtype", "int8", "minBytes", 1, "maxBytes", 8L << 30), "stepFactor");
        cases.forEach((body, field) -> {
            HttpResponse<String> response = http.submit(group, body);
            assertThat(response.statusCode()).as("%s", body).isEqualTo(400);
            assertThat(http.detail(response)).as("%s", body).startsWith(field + ":");
        });
        assertThat(http.listOk(group)).isEmpty();
    }

    @Test
    void aJobThatLeavesRanksOutShowsThemInItsJson() {
        directory.form(group, 4);

        Job job = http.submitOk(group, Map.of("excludeRanks", List.of(1, 3)));

        assertThat(http.get(group, job.jobId()).body()).contains("\"excludeRanks\":[1,3]");
        assertThat(http.getOk(group, job.jobId()).spec().excludeRanks()).containsExactly(1, 3);
        Map<Map<String, Object>, String> refused = Map.of(
                Map.of("excludeRanks", List.of(4)), "excludeRanks: 4 is not a rank of this group (world size 4)",
                Map.of("excludeRanks", List.of(0, 1, 2)), "excludeRanks: leaves 1 of 4 ranks",
                Map.of("op", "reduce", "root", 2, "excludeRanks", List.of(2)), "root: rank 2 is in excludeRanks");
        refused.forEach((body, detail) -> {
            HttpResponse<String> response = http.submit(group, body);
            assertThat(response.statusCode()).as("%s", body).isEqualTo(400);
            assertThat(http.detail(response)).as("%s", body).startsWith(detail);
        });
    }

    @Test
    void fractionalIntegerFieldsAnswer400InsteadOfBeingTruncated() {
        directory.form(group, 2);

        for (String field : List.of("stepFactor", "iterations", "minBytes", "timeoutSeconds")) {
            HttpResponse<String> response = http.submit(group, Map.of(field, 1.1));
            assertThat(response.statusCode()).as(field).isEqualTo(400);
            assertThat(response.headers().firstValue("Content-Type")).as(field)
                    .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(http.detail(response)).as(field).contains(field).contains("whole number").contains("1.1");
        }
        assertThat(http.listOk(group)).isEmpty();
        // A whole number written as a float is that number.
        assertThat(http.submitOk(group, Map.of("stepFactor", 4.0, "minBytes", 8, "maxBytes", 512)).spec().stepFactor())
                .isEqualTo(4);
    }

    @Test
    void zeroMinBytesRunsOneZeroByteSizeFirst() {
        directory.form(group, 2);

        Job job = http.submitOk(group, Map.of("minBytes", 0, "maxBytes", 16));

        assertThat(job.spec().minBytes()).isZero();
        assertThat(job.spec().sizes(2)).containsExactly(0L, 4L, 8L, 16L);
    }

    @Test
    void specAcceptsNcclTestsNamesForOpAndDtype() {
        directory.form(group, 4);

        Job job = http.submitOk(group, Map.of("op", "all-gather", "dtype", "half", "minBytes", 1024, "maxBytes", 4096));

        assertThat(job.spec().op()).isEqualTo(CollectiveOp.ALL_GATHER);
        assertThat(job.spec().dtype().ncclTestsName()).isEqualTo("half");
    }
}
