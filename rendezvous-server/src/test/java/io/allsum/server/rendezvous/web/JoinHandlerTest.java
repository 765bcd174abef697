package io.allsum.server.rendezvous.web;

import io.allsum.model.rendezvous.GroupView;
import io.allsum.server.rendezvous.RendezvousHttp;
import io.allsum.server.rendezvous.RendezvousHttpTestBase;
import io.allsum.server.rendezvous.RendezvousRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.read;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** {@link JoinHandler} answers every request to the join path, below the servlet layer, problems included. */
@TestPropertySource(properties = "allsum.rendezvous.body-timeout=1s")
class JoinHandlerTest extends RendezvousHttpTestBase {

    @Autowired
    RendezvousRegistry registry;

    @Test
    void joinsAreAnsweredByTheCoreHandler() {
        CompletableFuture<HttpResponse<String>> first = http.joinAsync(ring("core-served", 0, 2, "w0"), 30);
        RendezvousHttp.await("rank 0 parked", Duration.ofSeconds(10), () -> registry.parkedJoins("core-served") == 1);
        HttpResponse<String> second = http.join(ring("core-served", 1, 2, "w1"), 30);

        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(read(first.join(), GroupView.class).members()).hasSize(2);
    }

    @Test
    void aBodyThatDoesNotParseIsAnsweredNamingTheField() {
        HttpResponse<String> response = http.post("/rendezvous?wait=0",
                "{\"group\":\"unparsed\",\"rank\":\"x\",\"worldSize\":1,\"instanceId\":\"w0\",\"backend\":\"ring\"}");

        JsonNode problem = problem(response, 400);
        assertThat(problem.path("detail").stringValue()).startsWith("field 'rank' is invalid");
        assertThat(problem.path("title").stringValue()).isEqualTo("Malformed request body");
        assertThat(problem.path("instance").stringValue()).isEqualTo("/rendezvous");
    }

    @Test
    void anEmptyBodyOrJsonNullIs400() {
        assertThat(problem(http.post("/rendezvous?wait=0", ""), 400).path("detail").stringValue())
                .isEqualTo("a JSON body is required");
        problem(http.post("/rendezvous?wait=0", "null"), 400);
    }

    @Test
    void anAcceptThatRefusesJsonIs406() {
        HttpRequest request = http.builder("/rendezvous?wait=0").header("Content-Type", "application/json")
                .header("Accept", "text/html")
                .POST(HttpRequest.BodyPublishers.ofString(RendezvousHttp.JSON.writeValueAsString(
                        ring("html-only", 0, 1, "w0")))).build();
        assertThat(problem(http.send(request), 406).path("code").stringValue()).isEqualTo("not-acceptable");
    }

    @Test
    void aRepeatedParameterIs400NamingIt() {
        HttpResponse<String> response = http.post("/rendezvous?view=rank&view=full",
                RendezvousHttp.joinBody(ring("twice", 0, 1, "w0")));
        assertThat(problem(response, 400).path("violations").get(0).path("field").stringValue()).isEqualTo("view");
    }

    @Test
    void aBodyThatStopsHalfwayIsAnswered408Promptly() throws IOException {
        String body = RendezvousHttp.JSON.writeValueAsString(ring("stalled", 0, 1, "w0"));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            long started = System.nanoTime();
            write(socket, "POST /rendezvous?wait=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                    + "\r\nContent-Length: " + body.length() + "\r\n\r\n" + body.substring(0, body.length() / 2));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
            Duration took = Duration.ofNanos(System.nanoTime() - started);

            assertThat(answer).startsWith("HTTP/1.1 408").containsIgnoringCase("content-type: application/problem+json")
                    .containsIgnoringCase("connection: close").contains("\"code\":\"request-timeout\"");
            assertThat(took).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(http.get("/rendezvous/stalled").statusCode()).isEqualTo(404);
    }

    @Test
    void aJoinSeveralTimesLargerThanTheReadBufferIsReadInPiecesAndServed() throws IOException {
        // 1 KB read buffer (allsum.rendezvous.connection.read-buffer): headers and body of 3 KB each (JSON may pad)
        String body = " ".repeat(3000) + RendezvousHttp.JSON.writeValueAsString(ring("large", 0, 1, "w0"));

        String answer = exchange("POST /rendezvous?wait=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                + "\r\nX-Padding: " + "p".repeat(3000) + "\r\nContent-Length: " + body.length()
                + "\r\nConnection: close\r\n\r\n" + body);

        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"group\":\"large\"");
    }

    @Test
    void aChunkedJoinCompletes() throws IOException {
        String body = RendezvousHttp.JSON.writeValueAsString(ring("chunked", 0, 1, "w0"));

        String answer = exchange("POST /rendezvous?wait=5 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                + "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n");

        assertThat(answer).startsWith("HTTP/1.1 200").contains("\"group\":\"chunked\"");
    }

    @Test
    void aParkedJoinWhoseClientHangsUpDoesNotStopTheOthersAnswers() throws Exception {
        String body = RendezvousHttp.JSON.writeValueAsString(ring("hang-up", 0, 3, "w0"));
        try (Socket socket = new Socket("127.0.0.1", port)) {
            write(socket, "POST /rendezvous?wait=30 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length() + "\r\n\r\n" + body);
            RendezvousHttp.await("rank 0 parked", Duration.ofSeconds(10), () -> registry.parkedJoins("hang-up") == 1);
        } // rank 0's connection closes while it waits
        CompletableFuture<HttpResponse<String>> one = http.joinAsync(ring("hang-up", 1, 3, "w1"), 30);
        RendezvousHttp.await("rank 1 parked", Duration.ofSeconds(10), () -> registry.parkedJoins("hang-up") == 2);
        HttpResponse<String> two = http.join(ring("hang-up", 2, 3, "w2"), 30);

        assertThat(two.statusCode()).isEqualTo(200);
        assertThat(one.join().statusCode()).isEqualTo(200);
    }

    @ParameterizedTest
    @ValueSource(strings = {"application/json", "application/json; charset=UTF-8", "Application/JSON;charset=\"utf-8\""})
    void jsonContentTypesAreTaken(String contentType) {
        assertThat(JoinHandler.isJson(contentType)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"text/plain", "application/json; charset=ISO-8859-1", "application/jsonx", ""})
    void otherContentTypesAreRefused(String contentType) {
        assertThat(JoinHandler.isJson(contentType)).isFalse();
        assertThat(JoinHandler.isJson(null)).isFalse();
    }

    @Test
    void acceptHeadersThatAllowJsonAreTakenOthersRefused() {
        assertThat(JoinHandler.acceptsJson(List.of())).isTrue();
        assertThat(JoinHandler.acceptsJson(List.of("application/json, application/problem+json"))).isTrue();
        assertThat(JoinHandler.acceptsJson(List.of("text/html, */*;q=0.8"))).isTrue();
        assertThat(JoinHandler.acceptsJson(List.of("application/*"))).isTrue();
        assertThat(JoinHandler.acceptsJson(List.of("text/html"))).isFalse();
        assertThat(JoinHandler.acceptsJson(List.of("application/json;q=0"))).isFalse();
    }

    private String exchange(String request) throws IOException {
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            write(socket, request);
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    private static void write(Socket socket, String request) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(request.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    private HttpResponse<String> postEncoded(String contentEncoding, byte[] body) {
        return http.send(http.builder("/rendezvous?wait=0").header("Content-Type", "application/json")
                .header("Content-Encoding", contentEncoding).POST(HttpRequest.BodyPublishers.ofByteArray(body)).build());
    }

    private static byte[] joinJson(String group) {
        return RendezvousHttp.JSON.writeValueAsBytes(RendezvousHttp.joinBody(ring(group, 0, 1, "w0")));
    }

    @Test
    void aGzipBodyIsInflatedAndAPlainOneDeclaredGzipIsRefused() throws IOException {
        java.io.ByteArrayOutputStream gzip = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gzip)) {
            out.write(joinJson("gzip-sent"));
        }
        assertThat(postEncoded("gzip", gzip.toByteArray()).statusCode()).isEqualTo(200);

        HttpResponse<String> plain = postEncoded("gzip", joinJson("gzip-claimed"));
        JsonNode refused = problem(plain, 400);
        assertThat(refused.path("code").stringValue()).isEqualTo("invalid-request");
        assertThat(refused.path("detail").stringValue()).contains("Content-Encoding: gzip").contains("not gzip");
        assertThat(http.get("/rendezvous/gzip-claimed").statusCode()).isEqualTo(404);

        assertThat(problem(postEncoded("br", joinJson("brotli")), 415).path("detail").stringValue())
                .contains("Content-Encoding");
        http.delete("/rendezvous/gzip-sent");
    }
}
