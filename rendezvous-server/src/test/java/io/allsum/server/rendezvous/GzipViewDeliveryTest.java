package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.zip.GZIPInputStream;

import static io.allsum.server.rendezvous.RendezvousHttp.JSON;
import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

class GzipViewDeliveryTest extends RendezvousHttpTestBase {

    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    @Test
    void aWaitingRankThatAsksForGzipGetsTheSameViewGzipped() throws Exception {
        String id = newUniqueId();
        CompletableFuture<HttpResponse<byte[]>> gzipped = joinAsync(nccl("zipped", 1, 3, "w1", null), "gzip");
        CompletableFuture<HttpResponse<byte[]>> plain = joinAsync(nccl("zipped", 2, 3, "w2", null), null);
        RendezvousHttp.await("two parked joins", Duration.ofSeconds(20),
                () -> http.get("/rendezvous/zipped").body().contains("\"joinedRanks\":[1,2]"));
        HttpResponse<byte[]> last = joinAsync(nccl("zipped", 0, 3, "w0", id), "deflate, gzip;q=0.8").join();

        HttpResponse<byte[]> identity = plain.join();
        assertThat(identity.statusCode()).isEqualTo(200);
        assertThat(identity.headers().firstValue("Content-Encoding")).isEmpty();
        assertThat(identity.headers().firstValue("Vary")).hasValue("Accept-Encoding");
        for (HttpResponse<byte[]> zipped : java.util.List.of(gzipped.join(), last)) {
            assertThat(zipped.statusCode()).isEqualTo(200);
            assertThat(zipped.headers().firstValue("Content-Encoding")).hasValue("gzip");
            assertThat(zipped.headers().firstValue("Vary")).hasValue("Accept-Encoding");
            assertThat(zipped.headers().firstValue("Content-Type")).hasValueSatisfying(
                    type -> assertThat(type).startsWith("application/json"));
            assertThat(zipped.body().length).isLessThan(identity.body().length);
            assertThat(inflate(zipped.body())).isEqualTo(identity.body());
        }
        GroupView view = JSON.readValue(identity.body(), GroupView.class);
        assertThat(view.uniqueId()).isEqualTo(id);
        assertThat(view.members()).hasSize(3);
    }

    @Test
    void aRankThatRefusesGzipOrSendsNoAcceptEncodingGetsIdentityJson() throws Exception {
        CompletableFuture<HttpResponse<byte[]>> refusing = joinAsync(ring("plain", 1, 2, "w1"), "gzip;q=0, identity");
        RendezvousHttp.await("the parked join", Duration.ofSeconds(20),
                () -> http.get("/rendezvous/plain").body().contains("\"joinedRanks\":[1]"));
        HttpResponse<byte[]> none = joinAsync(ring("plain", 0, 2, "w0"), null).join();

        for (HttpResponse<byte[]> response : java.util.List.of(refusing.join(), none)) {
            assertThat(response.statusCode()).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Encoding")).isEmpty();
            assertThat(JSON.readValue(response.body(), GroupView.class).members()).hasSize(2);
        }
        assertThat(refusing.join().body()).isEqualTo(none.body());
    }

    @Test
    void membersLeaveOutTheirAbsentFields() throws Exception {
        HttpResponse<byte[]> solo = joinAsync(nccl("sparse", 0, 1, "w0", newUniqueId()), null).join();

        String body = new String(solo.body(), StandardCharsets.UTF_8);
        assertThat(body).contains("\"members\":[{\"rank\":0,\"instanceId\":\"w0\",\"host\":\"host-0\","
                + "\"device\":\"GPU-0\"}]").doesNotContain("\"endpoint\"");
    }

    @Test
    void aRepeatedJoinOfACompleteGenerationIsGzippedToo() throws Exception {
        JoinRequest solo = ring("again", 0, 1, "w0");
        HttpResponse<byte[]> first = joinAsync(solo, null).join();
        HttpResponse<byte[]> again = joinAsync(solo, "gzip").join();

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.headers().firstValue("Content-Encoding")).hasValue("gzip");
        assertThat(inflate(again.body())).isEqualTo(first.body());
    }

    private CompletableFuture<HttpResponse<byte[]>> joinAsync(JoinRequest request, String acceptEncoding) {
        HttpRequest.Builder builder = http.builder("/rendezvous?wait=30").header("Content-Type", "application/json");
        if (acceptEncoding != null) {
            builder.header("Accept-Encoding", acceptEncoding);
        }
        return client.sendAsync(builder.POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(request)))
                .build(), HttpResponse.BodyHandlers.ofByteArray());
    }

    private static byte[] inflate(byte[] gzip) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip))) {
            return in.readAllBytes();
        }
    }
}
