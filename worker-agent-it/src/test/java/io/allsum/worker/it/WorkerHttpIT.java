package io.allsum.worker.it;

import io.allsum.web.ProblemShape;
import io.allsum.web.RawConnections;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real worker's HTTP port on Jetty: the server's problem+json (with a code) for 401s and its own refusals, the
 * server's Bearer rule, and the allsum.http.* connection bounds (4 per address, 3 s for a header).
 */
class WorkerHttpIT {

    private static final String TOKEN = "worker-web-token";
    @AutoClose
    private static ItCluster cluster;
    private static ItCluster.Worker worker;
    /** One client for the class: each client keeps its idle connections, and they count against the address cap. */
    private static final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startWorker() throws Exception {
        cluster = ItCluster.start("worker-http", TOKEN, Stream.concat(ItCluster.WORKER_TIMING.stream(),
                Stream.of("--allsum.http.max-connections-per-address=4", "--allsum.http.header-timeout=3s")).toList());
        worker = cluster.startGroup("worker-http", 1).getFirst();
        cluster.awaitReady(worker);
    }

    private HttpResponse<String> send(String method, String path, String authorization, String contentType,
                                      String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(worker.uri(path)).timeout(Duration.ofSeconds(10))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (authorization != null) {
            request.header("Authorization", authorization);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void assertProblem(HttpResponse<String> answer, int status, String code) {
        assertThat(answer.statusCode()).as(answer.uri() + " " + answer.body()).isEqualTo(status);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        ProblemShape.assertShape(answer.body(), status, code, answer.uri().getRawPath());
    }

    @Test
    void unauthorizedIsTheServersProblemAndATabAfterTheSchemeIsNoCredential() throws Exception {
        assertProblem(send("GET", "/actuator/prometheus", null, null, null), 401, "unauthorized");
        assertProblem(send("GET", "/jobs", "Bearer wrong", null, null), 401, "unauthorized");
        assertProblem(send("GET", "/actuator/prometheus", "Bearer\t" + TOKEN, null, null), 401, "unauthorized");
        assertThat(send("GET", "/actuator/prometheus", "bearer  " + TOKEN, null, null).statusCode()).isEqualTo(200);
    }

    @Test
    void traceMultipartErrorPageAndUnknownHealthAreProblems() throws Exception {
        String auth = "Bearer " + TOKEN;
        assertProblem(send("TRACE", "/jobs", auth, null, null), 405, "method-not-allowed");
        assertProblem(send("POST", "/jobs", auth, "multipart/form-data; boundary=b",
                "--b\r\nContent-Disposition: form-data; name=\"op\"\r\n\r\nall_sum\r\n--b--\r\n"), 415,
                "unsupported-media-type");
        assertProblem(send("GET", "/error", auth, null, null), 404, "not-found");
        assertProblem(send("GET", "/actuator/health/no-such-group", auth, null, null), 404, "not-found");
    }

    @Test
    void excessAndSilentConnectionsAreClosedAndTheProbeStillAnswers() throws Exception {
        List<Socket> held = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                held.add(RawConnections.open(worker.port()));
            }
            Thread.sleep(300);
            try (Socket excess = RawConnections.open(worker.port())) {
                assertThat(RawConnections.closedByPeer(excess)).isTrue();
            }
            long start = System.nanoTime();
            for (Socket silent : held) {
                assertThat(RawConnections.closedByPeer(silent)).isTrue();
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(8));
            assertThat(send("GET", "/actuator/health/readiness", null, null, null).statusCode()).isEqualTo(200);
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }
}
