package io.allsum.server.web;

import io.allsum.server.rendezvous.RendezvousServerTest;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;
import org.springframework.boot.test.web.server.LocalServerPort;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** The server's answers to TRACE, multipart bodies, unknown health paths and silent connections (web-support). */
@RendezvousServerTest
@TestPropertySource(properties = "allsum.http.header-timeout=3s") // the shipped 20 s, shortened to wait less
class ServerWebAnswersTest {

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    @Test
    void traceIsA405ProblemThatEchoesNothing() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/rendezvous/g/jobs"))
                .header("X-Echo", "secret").method("TRACE", HttpRequest.BodyPublishers.noBody()));
        assertThat(answer.statusCode()).isEqualTo(405);
        assertThat(answer.body()).contains("\"code\":\"method-not-allowed\"").doesNotContain("secret");
    }

    @Test
    void aMultipartJobSubmissionIsA415Problem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/rendezvous/g/jobs"))
                .header("Content-Type", "multipart/form-data; boundary=b")
                .POST(HttpRequest.BodyPublishers.ofString(
                        "--b\r\nContent-Disposition: form-data; name=\"op\"\r\n\r\nall_sum\r\n--b--\r\n")));
        assertThat(answer.statusCode()).isEqualTo(415);
        assertThat(answer.body()).contains("\"code\":\"unsupported-media-type\"");
    }

    @Test
    void anUnknownHealthGroupIsA404Problem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/actuator/health/no-such-group")));
        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).contains("\"code\":\"not-found\"");
    }

    @Test
    void theErrorPathAskedForDirectlyIsA404Problem() throws Exception {
        HttpResponse<String> answer = send(HttpRequest.newBuilder(uri("/error")));
        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.body()).contains("\"code\":\"not-found\"");
    }

    @Test
    void aConnectionThatSendsNoHeaderIsClosedAtTheHeaderTimeout() throws Exception {
        try (Socket silent = new Socket()) {
            silent.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            silent.setSoTimeout(20_000);
            long start = System.nanoTime();
            try (InputStream in = silent.getInputStream()) {
                assertThat(in.read()).isEqualTo(-1);
            } catch (java.net.SocketException reset) {
                // closed by the server all the same
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofSeconds(2),
                    Duration.ofSeconds(10));
        }
        assertThat(send(HttpRequest.newBuilder(uri("/actuator/health"))).statusCode()).isEqualTo(200);
    }
}
