package io.allsum.server.rendezvous;

import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.HeartbeatResponse;
import io.allsum.model.rendezvous.JoinPending;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static io.allsum.server.rendezvous.RendezvousHttp.joinBody;
import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** Every answer says which server incarnation gave it, and every refusal is a problem+json 4xx, whoever refuses. */
class ErrorAnswersTest extends RendezvousHttpTestBase {


    @ParameterizedTest
    @ValueSource(strings = {"1.5", "1.0", "1e0"})
    void aNonIntegerNumberForAnIntegerFieldIsRefusedNotTruncated(String rank) {
        String body = RendezvousHttp.JSON.writeValueAsString(joinBody(ring("floats", 0, 2, "w0")))
                .replace("\"rank\":0", "\"rank\":" + rank);

        HttpResponse<String> response = http.post("/rendezvous?wait=0", body);

        assertProblem(response, 400, "invalid-request");
        assertThat(RendezvousHttp.json(response).path("detail").stringValue())
                .startsWith("field 'rank' is invalid: must be an integer, got ");
        assertThat(http.get("/rendezvous/floats").statusCode()).isEqualTo(404);
    }

    @ParameterizedTest
    @ValueSource(strings = {".", ".."})
    void dotAndDotDotAreNotGroupNames(String name) {
        Map<String, Object> body = joinBody(ring("x", 0, 1, "w0"));
        body.put("group", name);

        HttpResponse<String> response = http.post("/rendezvous?wait=0", body);

        assertProblem(response, 400, "invalid-request");
        assertThat(RendezvousHttp.json(response).path("violations").get(0).path("field").stringValue())
                .isEqualTo("group");
    }

    @Test
    void aQueryStringThatDoesNotDecodeIs400Not500() throws IOException {
        String body = RendezvousHttp.JSON.writeValueAsString(joinBody(ring("bad-query", 0, 2, "w0")));

        RawAnswer answer = raw("POST /rendezvous?wait=%zz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                + "\r\nContent-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body);

        assertThat(answer.status()).isEqualTo(400);
        assertThat(answer.head()).containsIgnoringCase("content-type: application/problem+json");
        assertThat(answer.body()).contains("the request is malformed").contains("\"code\":\"invalid-request\"");
        assertThat(http.get("/rendezvous/bad-query").statusCode()).isEqualTo(404);
    }

    @Test
    void getErrorIsA404ProblemNot500() {
        assertProblem(http.get("/error"), 404, "not-found");
    }

    @Test
    void anEncodedSlashInThePathIsRefusedByTheContainerAsProblemJson() throws IOException {
        RawAnswer answer = raw("GET /rendezvous/a%2Fb HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");

        assertThat(answer.status()).isBetween(400, 499);
        assertThat(answer.head()).containsIgnoringCase("content-type: application/problem+json");
        assertThat(answer.body()).contains("\"code\"").doesNotContainIgnoringCase("<html");
    }

    @Test
    void aHeaderOf64KilobytesIsRefusedAsProblemJson() throws IOException {
        String big = "x".repeat(64 * 1024);
        RawAnswer answer = raw("GET /rendezvous/any HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + big
                + "\r\nConnection: close\r\n\r\n");

        assertThat(answer.status()).isBetween(400, 499);
        assertThat(answer.head()).containsIgnoringCase("content-type: application/problem+json");
        assertThat(answer.body()).contains("\"code\"").doesNotContainIgnoringCase("<html");
    }

    @Test
    void everyAnswerCarriesTheServerEpochAndRendezvousBodiesRepeatIt() {
        HttpResponse<String> pending = http.join(ring("epochs", 0, 2, "w0"), 0);
        String epoch = pending.headers().firstValue(Protocol.EPOCH_HEADER).orElseThrow();
        HttpResponse<String> complete = http.join(ring("epochs", 1, 2, "w1"), 0);
        HttpResponse<String> heartbeat = http.post("/rendezvous/epochs/heartbeat", new HeartbeatRequest(1, "w1", 1L));

        assertThat(epoch).hasSize(16);
        assertThat(read(pending, JoinPending.class).epoch()).isEqualTo(epoch);
        assertThat(read(complete, GroupView.class).epoch()).isEqualTo(epoch);
        assertThat(read(heartbeat, HeartbeatResponse.class).epoch()).isEqualTo(epoch);
        assertThat(http.get("/rendezvous/epochs/jobs").headers().firstValue(Protocol.EPOCH_HEADER)).contains(epoch);
        assertThat(http.get("/no/such/path").headers().firstValue(Protocol.EPOCH_HEADER)).contains(epoch);
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(problem(response, status).path("code").stringValue()).isEqualTo(code);
    }

    private record RawAnswer(int status, String head, String body) {
    }

    /** A request written byte for byte: the JDK client refuses to send some of what the container must refuse. */
    private RawAnswer raw(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(request.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (IOException closedEarly) {
                // The container may answer and close before the whole header is written; the answer is still there.
            }
            InputStream in = socket.getInputStream();
            String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
            int split = text.indexOf("\r\n\r\n");
            String head = split < 0 ? text : text.substring(0, split);
            String body = split < 0 ? "" : text.substring(split + 4);
            return new RawAnswer(Integer.parseInt(head.substring(9, 12)), head, body);
        }
    }
}
