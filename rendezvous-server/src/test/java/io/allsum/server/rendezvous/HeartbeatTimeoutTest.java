package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** Silent members: a short heartbeat timeout keeps these fast; nothing asserts on how long anything took. */
@TestPropertySource(properties = {"allsum.rendezvous.heartbeat-timeout=1s", "allsum.rendezvous.sweep-interval=100ms"})
class HeartbeatTimeoutTest extends RendezvousHttpTestBase {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @Autowired
    EventLog events;

    @Test
    void heartbeatTimeoutFailsTheGenerationAndSurvivorsCompleteGenerationTwoWithANewId() {
        String firstId = newUniqueId();
        List<CompletableFuture<HttpResponse<String>>> gen1 = List.of(
                http.joinAsync(nccl("hb", 0, 3, "w0", firstId), 30),
                http.joinAsync(nccl("hb", 1, 3, "w1", null), 30),
                http.joinAsync(nccl("hb", 2, 3, "w2", null), 30));
        gen1.forEach(join -> assertThat(join.join().statusCode()).isEqualTo(200));

        // Ranks 0 and 1 heartbeat; rank 2 has died silently.
        RendezvousHttp.await("the heartbeat timeout", DEADLINE, () -> {
            HeartbeatResponse r0 = heartbeat("hb", 0, "w0", 1);
            HeartbeatResponse r1 = heartbeat("hb", 1, "w1", 1);
            return r0.state() == GenerationState.FAILED && r1.state() == GenerationState.FAILED;
        });
        HeartbeatResponse survivorView = heartbeat("hb", 0, "w0", 1);
        assertThat(survivorView.generation()).isEqualTo(1);
        assertThat(survivorView.failureReason()).contains("rank 2 (instance w2)").contains("heartbeat");
        assertThat(events.failed()).anySatisfy(e -> assertThat(e.group()).isEqualTo("hb"));

        // The single-use id of generation 1 is refused for generation 2.
        HttpResponse<String> stale = http.join(nccl("hb", 0, 3, "w0", firstId), 0);
        assertThat(stale.statusCode()).isEqualTo(409);
        assertThat(stale.body()).contains("stale").doesNotContain(firstId);

        String secondId = newUniqueId();
        CompletableFuture<HttpResponse<String>> r0 = http.joinAsync(nccl("hb", 0, 3, "w0", secondId), 30);
        CompletableFuture<HttpResponse<String>> r1 = http.joinAsync(nccl("hb", 1, 3, "w1", null), 30);
        CompletableFuture<HttpResponse<String>> r2 = http.joinAsync(nccl("hb", 2, 3, "w2-restarted", null), 30);

        List<GroupView> views = List.of(r0, r1, r2).stream().map(CompletableFuture::join)
                .peek(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(200))
                .map(r -> read(r, GroupView.class)).toList();
        assertThat(views).allSatisfy(v -> {
            assertThat(v.generation()).isEqualTo(2);
            assertThat(v.uniqueId()).isEqualTo(secondId);
        });
        assertThat(views.getFirst().members().get(2).instanceId()).isEqualTo("w2-restarted");
        assertThat(events.completed()).anySatisfy(e -> {
            assertThat(e.group()).isEqualTo("hb");
            assertThat(e.generation()).isEqualTo(2);
        });
    }


    @Test
    void aJoinedRankThatGoesSilentWhileJoiningLosesItsPlace() {
        assertThat(http.join(ring("silent", 0, 2, "w0"), 0).statusCode()).isEqualTo(202);
        RendezvousHttp.await("the silent rank to be dropped", DEADLINE,
                () -> read(http.get("/rendezvous/silent"), GroupStatus.class).joinedRanks().isEmpty());
        assertThat(http.join(ring("silent", 0, 2, "w0-restarted"), 0).statusCode()).isEqualTo(202);
    }


    private HeartbeatResponse heartbeat(String group, int rank, String instanceId, long generation) {
        HttpResponse<String> response = http.post("/rendezvous/" + group + "/heartbeat",
                new HeartbeatRequest(rank, instanceId, generation));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return read(response, HeartbeatResponse.class);
    }
}
