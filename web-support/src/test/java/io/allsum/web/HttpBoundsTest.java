package io.allsum.web;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The bounds and error answers web-support gives server and worker, on a real Jetty port with raw sockets: a small
 * cap per address, a short header timeout.
 */
@SpringBootTest(classes = HttpBoundsTest.App.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"allsum.http.max-connections-per-address=4", "allsum.http.header-timeout=2s",
                "server.jetty.connection-idle-timeout=30s", "spring.servlet.multipart.enabled=false",
                "management.endpoints.web.exposure.include=health"})
class HttpBoundsTest {

    @SpringBootApplication
    @RestController
    static class App {
        @PostMapping("/things")
        Map<String, Object> post(@RequestBody Map<String, Object> body) {
            return body;
        }

        @GetMapping("/fails")
        void fails() {
            throw new IllegalStateException("a bug");
        }
    }

    @LocalServerPort
    int port;

    /** One client for the class: each client keeps its idle connections, and they count against the address cap. */
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> health() throws Exception {
        return send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health")));
    }

    @Test
    void connectionsBeyondTheAddressCapAreClosedAndHealthAnswersOnceTheyAreGone() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                held.add(RawConnections.open(port));
            }
            Thread.sleep(300); // Jetty counts the four before the fifth arrives
            try (Socket excess = RawConnections.open(port)) {
                long start = System.nanoTime();
                assertThat(RawConnections.closedByPeer(excess)).isTrue();
                assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
            }
            // the four silent ones go at the header timeout; then a fresh client is answered
            for (Socket socket : held) {
                assertThat(RawConnections.closedByPeer(socket)).isTrue();
            }
            assertThat(health().statusCode()).isEqualTo(200);
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    @Test
    void aClientThatTricklesItsHeaderIsClosedByTheHeaderTimeout() throws Exception {
        try (Socket socket = RawConnections.open(port)) {
            OutputStream out = socket.getOutputStream();
            long start = System.nanoTime();
            out.write("GET /actuator/health HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
            boolean closed = false;
            for (int i = 0; i < 20 && !closed; i++) { // a header line every 500 ms: never idle
                Thread.sleep(500);
                try {
                    out.write(("X-Slow-" + i + ": y\r\n").getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException e) {
                    closed = true;
                }
            }
            assertThat(closed || RawConnections.closedByPeer(socket)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
        }
        assertThat(health().statusCode()).isEqualTo(200);
    }

    @Test
    void aKeptAliveConnectionOutlivesTheHeaderTimeout() throws Exception {
        try (Socket socket = RawConnections.open(port)) {
            OutputStream out = socket.getOutputStream();
            out.write("GET /actuator/health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(3000);
            out.write("GET /actuator/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String answers = new String(socket.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(answers.split("HTTP/1.1 200", -1)).hasSize(3);
        }
    }

    @Test
    void traceIsRefusedAsAProblem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/things"))
                .method("TRACE", HttpRequest.BodyPublishers.noBody()));
        assertThat(answer.statusCode()).isEqualTo(405);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("\"code\":\"method-not-allowed\"").doesNotContain("TRACE /things");
    }

    @Test
    void aMultipartBodyIsA415Problem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/things"))
                .header("Content-Type", "multipart/form-data; boundary=b")
                .POST(HttpRequest.BodyPublishers.ofString("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n")));
        assertThat(answer.statusCode()).isEqualTo(415);
        assertThat(answer.body()).contains("\"code\":\"unsupported-media-type\"");
    }

    @Test
    void theErrorPathAskedForDirectlyIsA404Problem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/error")));
        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).contains("\"code\":\"not-found\"");
    }

    @Test
    void anUnknownHealthComponentIsA404WithAProblemBody() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/actuator/health/nothing-here")));
        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("\"code\":\"not-found\"");
    }

    /** The same members and order whoever writes the problem: the advice, a filter, the error page, Jetty. */
    @Test
    void everyWriterGivesTheOneProblemShape() throws Exception {
        String base = "http://127.0.0.1:" + port;
        HttpResponse<String> bug = send(HttpRequest.newBuilder(URI.create(base + "/fails")));
        ProblemShape.assertShape(bug.body(), 500, "internal-error", "/fails");
        HttpResponse<String> unknown = send(HttpRequest.newBuilder(URI.create(base + "/nothing")));
        ProblemShape.assertShape(unknown.body(), 404, "not-found", "/nothing");
        HttpResponse<String> unreadable = send(HttpRequest.newBuilder(URI.create(base + "/things"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{")));
        ProblemShape.assertShape(unreadable.body(), 400, "invalid-request", "/things");
        HttpResponse<String> trace = send(HttpRequest.newBuilder(URI.create(base + "/things"))
                .method("TRACE", HttpRequest.BodyPublishers.noBody()));
        ProblemShape.assertShape(trace.body(), 405, "method-not-allowed", "/things");
        HttpResponse<String> health = send(HttpRequest.newBuilder(URI.create(base + "/actuator/health/nothing")));
        ProblemShape.assertShape(health.body(), 404, "not-found", "/actuator/health/nothing");
        HttpResponse<String> error = send(HttpRequest.newBuilder(URI.create(base + "/error")));
        ProblemShape.assertShape(error.body(), 404, "not-found", "/error");
        try (Socket socket = RawConnections.open(port)) {
            socket.getOutputStream().write("GET /a%2Fb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400").contains("application/problem+json");
            ProblemShape.assertShape(answer.substring(answer.indexOf("\r\n\r\n") + 4), 400, "invalid-request", null);
        }
    }
}
