package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinPending;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.Member;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

class RendezvousJoinTest extends RendezvousHttpTestBase {

    @Autowired
    RendezvousRegistry registry;

    @Test
    void singleRankCompletesAtOnceWithItsOwnId() {
        String id = newUniqueId();
        HttpResponse<String> response = http.join(nccl("solo", 0, 1, "w0", id), 5);

        assertThat(response.statusCode()).isEqualTo(200);
        GroupView view = read(response, GroupView.class);
        assertThat(view.generation()).isEqualTo(1);
        assertThat(view.uniqueId()).isEqualTo(id);
        assertThat(view.members()).extracting(Member::rank).containsExactly(0);
    }

    @Test
    void twoRanksGetTheSameViewCarryingRankZerosId() {
        String id = newUniqueId();
        CompletableFuture<HttpResponse<String>> rank1 = http.joinAsync(nccl("pair", 1, 2, "w1", null), 30);
        HttpResponse<String> rank0 = http.join(nccl("pair", 0, 2, "w0", id), 30);

        assertThat(rank0.statusCode()).isEqualTo(200);
        assertThat(rank1.join().statusCode()).isEqualTo(200);
        GroupView view0 = read(rank0, GroupView.class);
        GroupView view1 = read(rank1.join(), GroupView.class);
        assertThat(view1).isEqualTo(view0);
        assertThat(view0.uniqueId()).isEqualTo(id);
        assertThat(view0.members()).extracting(Member::instanceId).containsExactly("w0", "w1");
        assertThat(view0.members().get(0).device()).isEqualTo("GPU-0");
    }

    @Test
    void sixtyFourRanksAllCompleteWithOneView() {
        String id = newUniqueId();
        List<CompletableFuture<HttpResponse<String>>> joins = IntStream.range(0, 64)
                .mapToObj(rank -> http.joinAsync(nccl("g64", rank, 64, "w" + rank, id), 60))
                .toList();

        List<GroupView> views = joins.stream().map(CompletableFuture::join)
                .peek(response -> assertThat(response.statusCode()).isEqualTo(200))
                .map(response -> read(response, GroupView.class)).toList();
        assertThat(views).allSatisfy(view -> assertThat(view).isEqualTo(views.getFirst()));
        assertThat(views.getFirst().members()).extracting(Member::rank)
                .containsExactlyElementsOf(IntStream.range(0, 64).boxed().toList());
        assertThat(views.getFirst().uniqueId()).isEqualTo(id);
    }

    @Test
    void moreWaitingJoinsThanOneAnswerChunkAllGetTheSameView() {
        int ranks = 3 * GroupTransitions.Effects.ANSWER_CHUNK + 7; // answered by several threads, one chunk each
        String id = newUniqueId();
        List<CompletableFuture<HttpResponse<String>>> waiting = IntStream.range(1, ranks)
                .mapToObj(rank -> http.joinAsync(nccl("chunks", rank, ranks, "w" + rank, null), 60))
                .toList();
        RendezvousHttp.await("every join but rank 0's to park", Duration.ofSeconds(30),
                () -> joined("chunks") == ranks - 1);

        GroupView last = read(http.join(nccl("chunks", 0, ranks, "w0", id), 60), GroupView.class);

        assertThat(waiting).allSatisfy(join -> {
            HttpResponse<String> response = join.join();
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(read(response, GroupView.class)).isEqualTo(last);
        });
        assertThat(last.uniqueId()).isEqualTo(id);
    }

    @Test
    void closingAGroupWithMoreWaitersThanOneAnswerChunkAnswersEveryOne410() {
        int waiters = 2 * GroupTransitions.Effects.ANSWER_CHUNK + 1;
        List<CompletableFuture<HttpResponse<String>>> waiting = IntStream.range(0, waiters)
                .mapToObj(rank -> http.joinAsync(ring("closed-chunks", rank, waiters + 1, "w" + rank), 60))
                .toList();
        RendezvousHttp.await("the joins to park", Duration.ofSeconds(30),
                () -> joined("closed-chunks") == waiters);

        assertThat(http.delete("/rendezvous/closed-chunks").statusCode()).isEqualTo(204);

        assertThat(waiting).allSatisfy(join -> {
            HttpResponse<String> response = join.join();
            assertThat(response.statusCode()).isEqualTo(410);
            assertThat(RendezvousHttp.json(response).get("detail").asString()).contains("closed-chunks");
        });
    }

    /** Ranks joined so far; 0 while the group does not exist yet (its first join still on the way). */
    private int joined(String group) {
        HttpResponse<String> status = http.get("/rendezvous/" + group);
        return status.statusCode() == 200 ? RendezvousHttp.json(status).get("joinedRanks").size() : 0;
    }

    @Test
    void joinAnswers202WithMissingRanksThenCompletesWhenTheStragglerArrives() {
        HttpResponse<String> early = http.join(ring("straggle", 0, 3, "w0"), 0);
        assertThat(early.statusCode()).isEqualTo(202);
        assertThat(early.headers().firstValue("Retry-After")).isPresent();
        JoinPending pending = read(early, JoinPending.class);
        assertThat(pending.joinedRanks()).containsExactly(0);
        assertThat(pending.missingRanks()).containsExactly(1, 2);
        assertThat(pending.generation()).isEqualTo(1);
        assertThat(pending.joinDeadline()).isNotNull();

        HttpResponse<String> second = http.join(ring("straggle", 1, 3, "w1"), 0);
        assertThat(read(second, JoinPending.class).missingRanks()).containsExactly(2);

        CompletableFuture<HttpResponse<String>> rank0 = http.joinAsync(ring("straggle", 0, 3, "w0"), 30);
        CompletableFuture<HttpResponse<String>> rank1 = http.joinAsync(ring("straggle", 1, 3, "w1"), 30);
        RendezvousHttp.await("two parked joins", Duration.ofSeconds(20), () -> parked("straggle") == 2);
        HttpResponse<String> last = http.join(ring("straggle", 2, 3, "w2"), 30);

        assertThat(last.statusCode()).isEqualTo(200);
        assertThat(rank0.join().statusCode()).isEqualTo(200);
        assertThat(rank1.join().statusCode()).isEqualTo(200);
        GroupView view = read(last, GroupView.class);
        assertThat(view.uniqueId()).isNull();
        assertThat(view.members()).extracting(Member::endpoint)
                .containsExactly("127.0.0.1:20000", "127.0.0.1:20001", "127.0.0.1:20002");
    }

    @Test
    void repostWithTheSameInstanceIsIdempotentBeforeAndAfterCompletion() {
        JoinRequest rank0 = ring("idem", 0, 2, "w0");
        assertThat(http.join(rank0, 0).statusCode()).isEqualTo(202);
        assertThat(http.join(rank0, 0).statusCode()).isEqualTo(202);
        assertThat(read(http.get("/rendezvous/idem"), GroupStatus.class).joinedRanks()).containsExactly(0);

        HttpResponse<String> completing = http.join(ring("idem", 1, 2, "w1"), 5);
        HttpResponse<String> again0 = http.join(rank0, 5);
        HttpResponse<String> again1 = http.join(ring("idem", 1, 2, "w1"), 5);

        assertThat(completing.statusCode()).isEqualTo(200);
        assertThat(again0.statusCode()).isEqualTo(200);
        assertThat(again1.body()).isEqualTo(completing.body());
        assertThat(again0.body()).isEqualTo(completing.body());
        assertThat(read(again0, GroupView.class).generation()).isEqualTo(1);
    }

    @Test
    void statusShowsMembersAndNeverTheId() {
        String id = newUniqueId();
        http.join(nccl("quiet", 0, 2, "w0", id), 0);
        HttpResponse<String> joining = http.get("/rendezvous/quiet");
        http.join(nccl("quiet", 1, 2, "w1", null), 5);
        HttpResponse<String> complete = http.get("/rendezvous/quiet");

        assertThat(joining.statusCode()).isEqualTo(200);
        assertThat(joining.body()).doesNotContain(id);
        assertThat(complete.body()).doesNotContain(id).doesNotContain("uniqueId");
        GroupStatus status = read(complete, GroupStatus.class);
        assertThat(status.state()).isEqualTo(GenerationState.COMPLETE);
        assertThat(status.joinedRanks()).containsExactly(0, 1);
        assertThat(status.missingRanks()).isEmpty();
        assertThat(status.members()).hasSize(2).allSatisfy(m -> assertThat(m.heartbeatAgeMillis()).isNotNegative());
        assertThat(http.get("/actuator/prometheus").body()).doesNotContain(id);
    }

    @Test
    void twoThousandWaitingJoinsParkWithoutThreadsAndAllComplete() {
        int waiting = 2000;
        String id = newUniqueId();
        List<CompletableFuture<HttpResponse<String>>> joins = new ArrayList<>(waiting);
        for (int rank = 0; rank < waiting; rank++) {
            joins.add(http.joinAsync(nccl("big", rank, waiting + 1, "w" + rank, id), 120));
        }
        RendezvousHttp.await(waiting + " parked joins", Duration.ofSeconds(90), () -> parked("big") == waiting);
        assertThat(registry.waitingJoins()).isGreaterThanOrEqualTo(waiting);
        assertThat(read(http.get("/rendezvous/big"), GroupStatus.class).missingRanks()).containsExactly(waiting);

        HttpResponse<String> last = http.join(nccl("big", waiting, waiting + 1, "w" + waiting, null), 30);

        assertThat(last.statusCode()).isEqualTo(200);
        for (CompletableFuture<HttpResponse<String>> join : joins) {
            HttpResponse<String> response = join.join();
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.body()).isEqualTo(last.body());
        }
        assertThat(read(last, GroupView.class).members()).hasSize(waiting + 1);
    }

    private int parked(String group) {
        return registry.parkedJoins(group);
    }
}
