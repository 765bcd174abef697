package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** Retention and the full queue over HTTP, with a small history and a short max-age. */
@TestPropertySource(properties = {
        "allsum.jobs.history=2",
        "allsum.jobs.max-age=1s",
        "allsum.jobs.cleanup-interval=100ms",
})
class JobHistoryHttpTest extends JobsHttpTestBase {

    @Test
    void fullQueueAnswers429WithRetryAfterAsAProblem() {
        directory.form(group, 2);
        http.submitOk(group, JobSpec.allSum(8));
        http.submitOk(group, JobSpec.allSum(8));

        HttpResponse<String> refused = http.submit(group, JobSpec.allSum(8));

        assertThat(refused.statusCode()).isEqualTo(429);
        assertThat(refused.headers().firstValue("Retry-After")).hasValueSatisfying(
                seconds -> assertThat(Integer.parseInt(seconds)).isPositive());
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(http.detail(refused)).contains("2 unfinished jobs");
    }

    @Test
    void scheduledCleanupDeletesEndedJobsPastMaxAge() throws Exception {
        directory.form(group, 2);
        Job cancelled = http.submitOk(group, JobSpec.allSum(8));
        http.cancel(group, cancelled.jobId());
        Job queued = http.submitOk(group, JobSpec.allSum(8));

        long deadline = System.nanoTime() + EVENTUALLY.toNanos();
        while (http.get(group, cancelled.jobId()).statusCode() == 200 && System.nanoTime() - deadline < 0) {
            Thread.sleep(50);
        }

        assertThat(http.get(group, cancelled.jobId()).statusCode()).isEqualTo(404);
        assertThat(http.listOk(group)).extracting(Job::jobId).containsExactly(queued.jobId());
    }
}
