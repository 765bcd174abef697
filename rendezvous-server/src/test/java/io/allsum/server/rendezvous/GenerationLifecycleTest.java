package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.LeaveRequest;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** Failure reports, leaving, closing, and the next generation. */
class GenerationLifecycleTest extends RendezvousHttpTestBase {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @Autowired
    EventLog events;

    @Test
    void heartbeatOfAnOldGenerationLearnsTheCurrentOneAndWhyTheOldFailed() {
        completeRing("old", 2);
        http.post("/rendezvous/old/failures", new FailureReport(0, "w0", 1L, 1, "peer socket closed"));
        CompletableFuture<HttpResponse<String>> rejoin0 = http.joinAsync(ring("old", 0, 2, "w0"), 30);
        RendezvousHttp.await("generation 2 to open", DEADLINE,
                () -> read(http.get("/rendezvous/old"), GroupStatus.class).generation() == 2);

        HeartbeatResponse late = heartbeat("old", 1, "w1", 1);

        assertThat(late.generation()).isEqualTo(2);
        assertThat(late.state()).isEqualTo(GenerationState.JOINING);
        assertThat(late.failureReason()).contains("rank 1 (instance w1) was reported failed by rank 0")
                .contains("peer socket closed");
        http.join(ring("old", 1, 2, "w1"), 30);
        assertThat(rejoin0.join().statusCode()).isEqualTo(200);
    }

    @Test
    void reportedFailureFailsTheGenerationNamingRankAndInstance() {
        completeRing("report", 3);
        HttpResponse<String> response = http.post("/rendezvous/report/failures",
                new FailureReport(1, "w1", 1L, 2, "ncclCommGetAsyncError: remote process exited"));

        assertThat(response.statusCode()).isEqualTo(200);
        HeartbeatResponse answer = read(response, HeartbeatResponse.class);
        assertThat(answer.state()).isEqualTo(GenerationState.FAILED);
        assertThat(answer.failureReason()).contains("rank 2 (instance w2)").contains("rank 1");
        GroupStatus status = read(http.get("/rendezvous/report"), GroupStatus.class);
        assertThat(status.state()).isEqualTo(GenerationState.FAILED);
        assertThat(status.failureReason()).isEqualTo(answer.failureReason());
    }

    @Test
    void leavingACompleteGenerationFailsItAndLeavingWhileJoiningFreesTheRank() {
        completeRing("leave", 2);
        HeartbeatResponse left = read(http.post("/rendezvous/leave/leave", new LeaveRequest(1, "w1")),
                HeartbeatResponse.class);
        assertThat(left.state()).isEqualTo(GenerationState.FAILED);
        assertThat(left.failureReason()).contains("rank 1 (instance w1) left");

        http.join(ring("leave", 0, 2, "w0"), 0);
        http.post("/rendezvous/leave/leave", new LeaveRequest(0, "w0"));
        GroupStatus status = read(http.get("/rendezvous/leave"), GroupStatus.class);
        assertThat(status.generation()).isEqualTo(2);
        assertThat(status.joinedRanks()).isEmpty();
        assertThat(http.join(ring("leave", 0, 2, "another-w0"), 0).statusCode()).isEqualTo(202);
    }

    @Test
    void closeIsPublishedAsGroupRemoved() {
        completeRing("removed", 1);
        assertThat(http.delete("/rendezvous/removed").statusCode()).isEqualTo(204);
        assertThat(events.removed()).anySatisfy(e -> assertThat(e.group()).isEqualTo("removed"));
    }

    private void completeRing(String group, int worldSize) {
        List<CompletableFuture<HttpResponse<String>>> joins = new java.util.ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            joins.add(http.joinAsync(ring(group, rank, worldSize, "w" + rank), 30));
        }
        joins.forEach(join -> assertThat(join.join().statusCode()).isEqualTo(200));
    }

    private HeartbeatResponse heartbeat(String group, int rank, String instanceId, long generation) {
        HttpResponse<String> response = http.post("/rendezvous/" + group + "/heartbeat",
                new HeartbeatRequest(rank, instanceId, generation));
        assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
        return read(response, HeartbeatResponse.class);
    }
}
