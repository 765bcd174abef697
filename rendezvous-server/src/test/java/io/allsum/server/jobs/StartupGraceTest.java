package io.allsum.server.jobs;

import io.allsum.model.ProtocolJson;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.server.RendezvousServerApplication;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real server restarted on the same data directory: a submission that arrives before the group's workers have
 * re-joined is answered 503 with Retry-After (the client retries) instead of 404; once they have, it is accepted.
 * After a heartbeat timeout of uptime a group nobody joined is unknown (404).
 */
class StartupGraceTest {

    private static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(6);

    @TempDir
    Path dataDir;

    private ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(RendezvousServerApplication.class).run("--server.port=0",
                "--server.address=127.0.0.1", "--spring.main.banner-mode=off", "--spring.datasource.url=",
                "--allsum.data-dir=" + dataDir, "--allsum.rendezvous.heartbeat-timeout=" + HEARTBEAT_TIMEOUT.toMillis() + "ms");
    }

    private static JobsHttp client(ConfigurableApplicationContext server) {
        int port = Integer.parseInt(server.getEnvironment().getRequiredProperty("local.server.port"));
        return new JobsHttp(port, ProtocolJson.mapper());
    }

    @Test
    void aSubmissionBeforeTheWorkersReJoinedIsRetriedNotUnknown() throws Exception {
        String group = "grace-" + UUID.randomUUID().toString().substring(0, 8);
        Job before;
        try (ConfigurableApplicationContext first = start()) {
            client(first).formRingGroup(group, 2);
            before = client(first).submitOk(group, JobSpec.allSum(8));
        }

        try (ConfigurableApplicationContext server = start()) {
            JobsHttp restarted = client(server);
            long started = System.nanoTime();
            HttpResponse<String> early = restarted.submit(group, JobSpec.allSum(8));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).as("the test's premise: within the grace")
                    .isLessThan(HEARTBEAT_TIMEOUT);
            assertThat(early.statusCode()).as(early.body()).isEqualTo(503);
            assertThat(early.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/problem+json"));
            assertThat(early.headers().firstValue("Retry-After")).contains("1");
            JsonNode problem = ProtocolJson.mapper().readTree(early.body());
            assertThat(problem.path("code").asString()).isEqualTo("service-unavailable");
            assertThat(problem.path("detail").asString()).contains(group).contains("re-joining").contains("retry");

            restarted.formRingGroup(group, 2);
            Job after = restarted.submitOk(group, JobSpec.allSum(8));
            assertThat(after.seq()).isEqualTo(before.seq() + 1);

            String stranger = "stranger-" + UUID.randomUUID().toString().substring(0, 8);
            long left = HEARTBEAT_TIMEOUT.toNanos() - (System.nanoTime() - started);
            if (left > 0) {
                Thread.sleep(Duration.ofNanos(left).plusMillis(100));
            }
            HttpResponse<String> late = restarted.submit(stranger, JobSpec.allSum(8));
            assertThat(late.statusCode()).as(late.body()).isEqualTo(404);
            assertThat(restarted.detail(late)).contains(stranger).contains("unknown");
        }
    }
}
