package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.server.RendezvousServerApplication;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A server restarted while a group was at generation 15 (a new Spring context, a new port): it answers with a new
 * epoch, forms the group again above the generation its members report, and hands them job 1 once they poll with
 * a reset cursor.
 */
class ServerRestartTest {

    private ConfigurableApplicationContext server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    private RendezvousHttp start() {
        server = new SpringApplicationBuilder(RendezvousServerApplication.class)
                .run("--server.port=0", "--server.address=127.0.0.1", "--spring.main.banner-mode=off");
        return new RendezvousHttp(Integer.parseInt(server.getEnvironment().getProperty("local.server.port")));
    }

    @Test
    void aRestartedServerHasANewEpochAndContinuesGenerationsAboveTheReportedOnes() {
        RendezvousHttp first = start();
        GroupView fifteen = formGeneration(first, null);
        for (long generation = 1; generation < 15; generation++) {
            first.post("/rendezvous/r/failures", new FailureReport(0, "w0", generation, 1, "test: broke"));
            fifteen = formGeneration(first, null);
        }
        assertThat(fifteen.generation()).isEqualTo(15);
        String oldEpoch = fifteen.epoch();

        server.close();
        RendezvousHttp second = start();
        GroupView restarted = formGeneration(second, fifteen.generation());

        assertThat(restarted.generation()).isEqualTo(16);
        assertThat(restarted.epoch()).isNotNull().isNotEqualTo(oldEpoch);
        HttpResponse<String> submitted = second.post("/rendezvous/r/jobs",
                "{\"minBytes\":4,\"maxBytes\":4,\"iterations\":1}");
        assertThat(submitted.statusCode()).isEqualTo(201);
        assertThat(submitted.headers().firstValue(Protocol.EPOCH_HEADER)).contains(restarted.epoch());
        // The old server's cursor would skip job 1 of the new one; the reset cursor (0) gets it.
        assertThat(second.get("/rendezvous/r/jobs/next?rank=0&instanceId=w0&after=3&wait=0").statusCode())
                .isEqualTo(204);
        HttpResponse<String> job = second.get("/rendezvous/r/jobs/next?rank=0&instanceId=w0&after=0&wait=5");
        assertThat(job.statusCode()).isEqualTo(200);
        assertThat(read(job, JobAssignment.class)).satisfies(assignment -> {
            assertThat(assignment.seq()).isEqualTo(1);
            assertThat(assignment.generation()).isEqualTo(16);
        });
    }

    @Test
    void membersThatReportDifferentGenerationsGetOneAboveTheHighest() {
        RendezvousHttp http = start();
        CompletableFuture<HttpResponse<String>> low = http.joinAsync(returning(ring("mix", 1, 3, "w1"), 4L), 30);
        CompletableFuture<HttpResponse<String>> fresh = http.joinAsync(returning(ring("mix", 2, 3, "w2"), null), 30);
        HttpResponse<String> high = http.join(returning(ring("mix", 0, 3, "w0"), 12L), 30);

        assertThat(read(high, GroupView.class).generation()).isEqualTo(13);
        assertThat(read(low.join(), GroupView.class).generation()).isEqualTo(13);
        assertThat(read(fresh.join(), GroupView.class).generation()).isEqualTo(13);
    }

    /** Both ranks of group "r" join (with the generation they last belonged to) and get the complete view. */
    private static GroupView formGeneration(RendezvousHttp http, Long lastGeneration) {
        CompletableFuture<HttpResponse<String>> rank1 =
                http.joinAsync(returning(ring("r", 1, 2, "w1"), lastGeneration), 30);
        HttpResponse<String> rank0 = http.join(returning(ring("r", 0, 2, "w0"), lastGeneration), 30);
        assertThat(rank0.statusCode()).isEqualTo(200);
        assertThat(rank1.join().statusCode()).isEqualTo(200);
        return read(rank0, GroupView.class);
    }

    private static JoinRequest returning(JoinRequest request, Long lastGeneration) {
        return request.withLastGeneration(lastGeneration);
    }
}
