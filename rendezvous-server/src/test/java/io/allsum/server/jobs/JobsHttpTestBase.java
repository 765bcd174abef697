package io.allsum.server.jobs;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * One server on a random port for every job test class (same configuration, so Spring shares the context), with
 * the rendezvous replaced by {@link FakeGroupDirectory}. Each test uses its own group.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "spring.mvc.problemdetails.enabled=true",
        "allsum.jobs.sweep-interval=50ms",
        "allsum.jobs.max-sweep-sizes=32",
})
@Import(JobsTestSupport.class)
abstract class JobsHttpTestBase {

    /** Generous: only a broken server ever reaches it. */
    static final Duration EVENTUALLY = Duration.ofSeconds(30);

    @LocalServerPort
    int port;
    @Autowired
    JsonMapper json;
    @Autowired
    FakeGroupDirectory directory;

    JobsHttp http;
    String group;

    @BeforeEach
    void connect() {
        http = new JobsHttp(port, json);
        group = "g-" + UUID.randomUUID().toString().substring(0, 8);
    }

    String instance(int rank) {
        return directory.instanceId(group, rank);
    }

    /** Every rank of the current generation long-polls once and must receive a job. */
    List<JobAssignment> everyRankReceives(int worldSize, long after) {
        List<JobAssignment> received = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            received.add(http.nextOk(group, rank, instance(rank), after, 5).orElseThrow(
                    () -> new AssertionError("no job for the rank")));
        }
        return received;
    }

    RankReport success(int rank, JobAssignment job, List<RankSizeResult> results) {
        return new RankReport(rank, instance(rank), job.generation(), true, null, results);
    }

    /** Polls the job until {@code condition} holds or {@link #EVENTUALLY} passes. */
    Job awaitJob(String jobId, Predicate<Job> condition) throws InterruptedException {
        long deadline = System.nanoTime() + EVENTUALLY.toNanos();
        Job job = http.getOk(group, jobId);
        while (!condition.test(job)) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("job never reached the expected state: " + job);
            }
            Thread.sleep(20);
            job = http.getOk(group, jobId);
        }
        return job;
    }

    Job awaitState(String jobId, JobState state) throws InterruptedException {
        return awaitJob(jobId, j -> j.state() == state);
    }
}
