package io.allsum.server.web;

import io.allsum.server.rendezvous.RendezvousHttpTestBase;
import io.allsum.web.ProblemShape;
import io.allsum.web.RawConnections;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** The server's problems have one shape whoever writes them: the advice, a filter, the join handler, the error page. */
class ProblemShapeTest extends RendezvousHttpTestBase {

    @Test
    void adviceErrors() {
        ProblemShape.assertShape(http.get("/rendezvous/no-such-group").body(), 404, "unknown-group",
                "/rendezvous/no-such-group");
        ProblemShape.assertShape(http.get("/no-such-path").body(), 404, "not-found", "/no-such-path");
    }

    @Test
    void filterRefusals() {
        ProblemShape.assertShape(http.send(http.builder("/rendezvous/g")
                .method("TRACE", HttpRequest.BodyPublishers.noBody()).build()).body(), 405, "method-not-allowed",
                "/rendezvous/g");
    }

    @Test
    void joinHandlerRefusals() {
        ProblemShape.assertShape(http.get("/rendezvous").body(), 405, "method-not-allowed", "/rendezvous");
    }

    @Test
    void theErrorPageAndJetty() throws Exception {
        ProblemShape.assertShape(http.get("/error").body(), 404, "not-found", "/error");
        try (Socket socket = RawConnections.open(port)) {
            socket.getOutputStream().write("GET /a%2Fb HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII));
            String answer = new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(answer).startsWith("HTTP/1.1 400");
            ProblemShape.assertShape(answer.substring(answer.indexOf("\r\n\r\n") + 4), 400, "invalid-request", null);
        }
    }
}
