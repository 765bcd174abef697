package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPInputStream;

import static io.allsum.server.rendezvous.RendezvousHttp.JSON;
import static io.allsum.server.rendezvous.RendezvousHttp.json;
import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** The compact join answer ({@code view=rank}) and the cached full view ({@code GET /rendezvous/{group}/view}). */
@RendezvousServerTest
class RankViewTest {

    @LocalServerPort
    int port;

    RendezvousHttp http;
    HttpClient client;

    @BeforeEach
    void client() {
        http = new RendezvousHttp(port);
        client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    }

    @Test
    void everyNcclRankGetsTheIdGenerationWorldSizeAndItsOwnRankWithoutTheMemberList() {
        String id = newUniqueId();
        List<CompletableFuture<HttpResponse<byte[]>>> waiting = new ArrayList<>();
        for (int rank = 1; rank < 4; rank++) {
            waiting.add(join(nccl("compact", rank, 4, "w" + rank, null), "rank", "gzip"));
        }
        awaitJoined("compact", 3);
        HttpResponse<byte[]> last = join(nccl("compact", 0, 4, "w0", id), "rank", "gzip").join();
        waiting.addFirst(CompletableFuture.completedFuture(last));

        for (int rank = 0; rank < 4; rank++) {
            HttpResponse<byte[]> answer = waiting.get(rank).join();
            assertThat(answer.statusCode()).isEqualTo(200);
            assertThat(answer.headers().firstValue("Content-Encoding")).isEmpty();
            String body = new String(answer.body(), StandardCharsets.UTF_8);
            assertThat(body).doesNotContain("members", "previous", "next", "host-");
            RankView view = JSON.readValue(answer.body(), RankView.class);
            assertThat(view.rank()).isEqualTo(rank);
            assertThat(view.uniqueId()).isEqualTo(id);
            assertThat(view.generation()).isEqualTo(1);
            assertThat(view.worldSize()).isEqualTo(4);
            assertThat(view.backend()).isEqualTo(Backend.NCCL);
            assertThat(view.viewTag()).isNotBlank();
            assertThat(view.epoch()).isNotBlank();
        }
    }

    @Test
    void theCompactAnswerIsTheSameSizeAtAnyWorldSize() {
        int small = soloSizedAnswer("size-small", 2);
        int large = soloSizedAnswer("size-large", 200);
        // The group name and rank digits differ by a few bytes; 200 members would add kilobytes.
        assertThat(Math.abs(large - small)).isLessThan(16);
    }

    @Test
    void aRingRankGetsItsTwoNeighboursEndpoints() {
        List<CompletableFuture<HttpResponse<byte[]>>> answers = new ArrayList<>();
        for (int rank = 0; rank < 2; rank++) {
            answers.add(join(ring("neighbours", rank, 3, "w" + rank), "rank", null));
        }
        awaitJoined("neighbours", 2);
        answers.add(join(ring("neighbours", 2, 3, "w2"), "rank", null));

        RankView zero = JSON.readValue(answers.get(0).join().body(), RankView.class);
        RankView two = JSON.readValue(answers.get(2).join().body(), RankView.class);
        assertThat(zero.previous().rank()).isEqualTo(2);
        assertThat(zero.previous().endpoint()).isEqualTo("127.0.0.1:20002");
        assertThat(zero.next().endpoint()).isEqualTo("127.0.0.1:20001");
        assertThat(two.previous().endpoint()).isEqualTo("127.0.0.1:20001");
        assertThat(two.next().endpoint()).isEqualTo("127.0.0.1:20000");
    }

    @Test
    void aRepeatedCompactJoinGetsTheSameAnswerAgain() {
        JoinRequest solo = ring("again-compact", 0, 1, "w0");
        HttpResponse<byte[]> first = join(solo, "rank", null).join();
        HttpResponse<byte[]> again = join(solo, "rank", null).join();

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.body()).isEqualTo(first.body());
    }

    @Test
    void aJoinWithoutTheViewParameterStillGetsTheFullView() {
        JoinRequest solo = nccl("legacy", 0, 1, "w0", newUniqueId());
        HttpResponse<byte[]> full = join(solo, null, null).join();

        GroupView view = JSON.readValue(full.body(), GroupView.class);
        assertThat(view.members()).hasSize(1);
        assertThat(join(solo, "full", null).join().body()).isEqualTo(full.body());
    }

    @Test
    void anUnknownViewValueIsRefusedBeforeTheJoinTakesAPlace() {
        HttpResponse<byte[]> refused = join(nccl("bad-view", 0, 2, "w0", newUniqueId()), "everything", null).join();

        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(new String(refused.body(), StandardCharsets.UTF_8)).contains("view");
        assertThat(http.get("/rendezvous/bad-view").statusCode()).isEqualTo(404);
    }

    @Test
    void theViewEndpointServesTheMembersWithoutTheIdAndAnswers304ToItsETag() throws Exception {
        String id = newUniqueId();
        CompletableFuture<HttpResponse<byte[]>> waiting = join(nccl("cached", 1, 2, "w1", null), "rank", null);
        awaitJoined("cached", 1);
        RankView answer = JSON.readValue(join(nccl("cached", 0, 2, "w0", id), "rank", null).join().body(),
                RankView.class);
        waiting.join();

        HttpResponse<byte[]> plain = getView("/rendezvous/cached/view", null, null);
        assertThat(plain.statusCode()).isEqualTo(200);
        assertThat(plain.headers().firstValue("ETag")).hasValue("\"" + answer.viewTag() + "\"");
        assertThat(plain.headers().firstValue("Cache-Control")).hasValue("no-cache");
        String body = new String(plain.body(), StandardCharsets.UTF_8);
        assertThat(body).doesNotContain(id);
        GroupView view = JSON.readValue(plain.body(), GroupView.class);
        assertThat(view.uniqueId()).isNull();
        assertThat(view.members()).extracting(m -> m.instanceId()).containsExactly("w0", "w1");

        HttpResponse<byte[]> gzipped = getView("/rendezvous/cached/view?generation=1", "gzip", null);
        assertThat(gzipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(gzipped.headers().firstValue("ETag")).hasValue("\"" + answer.viewTag() + "-gzip\"");
        assertThat(inflate(gzipped.body())).isEqualTo(plain.body());

        for (String held : List.of("\"" + answer.viewTag() + "\"", "\"other\", W/\"" + answer.viewTag() + "-gzip\"")) {
            HttpResponse<byte[]> notModified = getView("/rendezvous/cached/view", "gzip", held);
            assertThat(notModified.statusCode()).isEqualTo(304);
            assertThat(notModified.body()).isEmpty();
        }
        assertThat(getView("/rendezvous/cached/view", null, "\"stale\"").statusCode()).isEqualTo(200);
    }

    @Test
    void theViewOfAJoiningOrAnotherGenerationIsAConflictAndOfAnUnknownGroupNotFound() {
        join(nccl("forming", 1, 2, "w1", null), "rank", null);
        awaitJoined("forming", 1);

        HttpResponse<byte[]> joining = getView("/rendezvous/forming/view", null, null);
        assertThat(joining.statusCode()).isEqualTo(409);
        assertThat(new String(joining.body(), StandardCharsets.UTF_8)).contains("joining");
        assertThat(getView("/rendezvous/nobody/view", null, null).statusCode()).isEqualTo(404);

        join(ring("solo-view", 0, 1, "w0"), "rank", null).join();
        HttpResponse<byte[]> other = getView("/rendezvous/solo-view/view?generation=7", null, null);
        assertThat(other.statusCode()).isEqualTo(409);
        assertThat(new String(other.body(), StandardCharsets.UTF_8)).contains("generation 1 is complete");
    }

    private int soloSizedAnswer(String group, int worldSize) {
        for (int rank = 1; rank < worldSize; rank++) {
            join(nccl(group, rank, worldSize, "w" + rank, null), "rank", null);
        }
        awaitJoined(group, worldSize - 1);
        HttpResponse<byte[]> last = join(nccl(group, 0, worldSize, "w0", newUniqueId()), "rank", null).join();
        assertThat(last.statusCode()).isEqualTo(200);
        return last.body().length;
    }

    private void awaitJoined(String group, int ranks) {
        RendezvousHttp.await(ranks + " parked joins of " + group, Duration.ofSeconds(30),
                () -> http.get("/rendezvous/" + group).statusCode() == 200
                        && json(http.get("/rendezvous/" + group)).path("joinedRanks").size() == ranks);
    }

    private CompletableFuture<HttpResponse<byte[]>> join(JoinRequest request, String view, String acceptEncoding) {
        HttpRequest.Builder builder = http.builder("/rendezvous?wait=30" + (view == null ? "" : "&view=" + view))
                .header("Content-Type", "application/json");
        if (acceptEncoding != null) {
            builder.header("Accept-Encoding", acceptEncoding);
        }
        return client.sendAsync(builder.POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private HttpResponse<byte[]> getView(String path, String acceptEncoding, String ifNoneMatch) {
        HttpRequest.Builder builder = http.builder(path).GET();
        if (acceptEncoding != null) {
            builder.header("Accept-Encoding", acceptEncoding);
        }
        if (ifNoneMatch != null) {
            builder.header("If-None-Match", ifNoneMatch);
        }
        try {
            return client.send(builder.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static byte[] inflate(byte[] gzip) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        }
    }
}
