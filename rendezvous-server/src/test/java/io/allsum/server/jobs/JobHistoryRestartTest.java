package io.allsum.server.jobs;

import io.allsum.model.ProtocolJson;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.server.RendezvousServerApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real server on a random port with a file database in a temporary data directory: jobs are submitted and run,
 * the server is stopped and a new one started on the same directory, and the history must be intact, the jobs that
 * were in flight INTERRUPTED with the reason, and the numbering continued.
 */
class JobHistoryRestartTest {

    private static final int RANKS = 2;

    @TempDir
    Path dataDir;

    final String group = "restart-" + UUID.randomUUID().toString().substring(0, 8);
    private ConfigurableApplicationContext server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    /**
     * The database settings, as command-line arguments so that they beat the tests' in-memory database. Here the
     * server's default: a blank url means the H2 file database under {@code allsum.data-dir}.
     */
    List<String> databaseArguments() {
        return List.of("--spring.datasource.url=", "--allsum.data-dir=" + dataDir);
    }

    /** Where the server keeps its database file, checked after the restart; null when it has none. */
    Path databaseFile() {
        return dataDir.resolve(DataDirectory.DATABASE_NAME + ".mv.db");
    }

    private JobsHttp startServer() {
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--server.address=127.0.0.1",
                // The simulated ranks send no heartbeats; the test must not depend on how fast CI is.
                "--allsum.rendezvous.heartbeat-timeout=300s"));
        args.addAll(databaseArguments());
        server = new SpringApplicationBuilder(RendezvousServerApplication.class).run(args.toArray(String[]::new));
        return new JobsHttp(port(), ProtocolJson.mapper());
    }

    private int port() {
        return Integer.parseInt(server.getEnvironment().getRequiredProperty("local.server.port"));
    }

    @Test
    void historySurvivesARestartInFlightJobsAreInterruptedAndNumberingContinues() throws Exception {
        JobsHttp http = startServer();
        List<String> before = http.formRingGroup(group, RANKS).instances();
        long generation = 1;
        Job finished = http.submitOk(group, JobSpec.allSum(1024));
        for (int rank = 0; rank < RANKS; rank++) {
            JobAssignment job = http.nextOk(group, rank, before.get(rank), 0, 10).orElseThrow();
            generation = job.generation();
            http.reportOk(group, job.jobId(), new RankReport(rank, before.get(rank), generation, true, null,
                    List.of(new RankSizeResult(1024, 256, 40.0, 0))));
        }
        Job running = http.submitOk(group, JobSpec.allSum(8));
        assertThat(http.nextOk(group, 0, before.get(0), finished.seq(), 10)).isPresent();
        Job queued = http.submitOk(group, JobSpec.allSum(16));
        server.close();
        server = null;

        http = startServer();

        if (databaseFile() != null) {
            assertThat(databaseFile()).isRegularFile();
        }
        // The group has not re-formed on this server, and its jobs still answer.
        Job stillFinished = http.getOk(group, finished.jobId());
        assertThat(stillFinished.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(stillFinished.results()).singleElement().satisfies(r -> {
            assertThat(r.bytes()).isEqualTo(1024);
            assertThat(r.timeMicros()).isEqualTo(40.0);
        });
        assertThat(stillFinished.reportedRanks()).containsExactly(0, 1);
        Job interrupted = http.getOk(group, running.jobId());
        assertThat(interrupted.state()).isEqualTo(JobState.INTERRUPTED);
        assertThat(interrupted.generation()).isEqualTo(generation);
        assertThat(interrupted.failureReason()).contains("server restarted while the job was running");
        assertThat(interrupted.finishedAt()).isNotNull();
        assertThat(http.getOk(group, queued.jobId())).satisfies(j -> {
            assertThat(j.state()).isEqualTo(JobState.INTERRUPTED);
            assertThat(j.failureReason()).contains("server restarted while the job was queued");
        });
        assertThat(http.listOk(group)).extracting(Job::jobId)
                .containsExactly(finished.jobId(), running.jobId(), queued.jobId());

        // A worker still retrying its report of the interrupted job is answered, so that it stops.
        RankReport late = new RankReport(1, before.get(1), generation, true, null,
                List.of(new RankSizeResult(8, 2, 10.0, 0)));
        assertThat(http.report(group, running.jobId(), late).statusCode()).isEqualTo(204);
        assertThat(http.report(group, UUID.randomUUID().toString(), late).statusCode()).isEqualTo(404);

        List<String> after = http.formRingGroup(group, RANKS).instances();
        Job next = http.submitOk(group, JobSpec.allSum(8));
        assertThat(next.seq()).isEqualTo(queued.seq() + 1);
        // A surviving worker polls with its cursor from the old server and still receives the new job.
        assertThat(http.nextOk(group, 0, after.get(0), running.seq(), 10)).hasValueSatisfying(
                a -> assertThat(a.jobId()).isEqualTo(next.jobId()));
        // A cursor beyond anything this history numbered (a server that lost its database) starts over.
        assertThat(http.nextOk(group, 1, after.get(1), 1_000, 10)).hasValueSatisfying(
                a -> assertThat(a.jobId()).isEqualTo(next.jobId()));
    }
}
