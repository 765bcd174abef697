package io.allsum.server.rendezvous;

import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;

import static org.assertj.core.api.Assertions.assertThat;

/** The real server on its random port (one shared context, {@link RendezvousServerTest}) and a client for it. */
@RendezvousServerTest
public abstract class RendezvousHttpTestBase {

    @LocalServerPort
    protected int port;

    protected RendezvousHttp http;

    @BeforeEach
    protected void client() {
        http = new RendezvousHttp(port);
    }

    /** Asserts a problem+json answer of {@code status} with a title and a detail, and returns it. */
    protected static JsonNode problem(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        JsonNode problem = RendezvousHttp.json(response);
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("title").asString()).isNotBlank();
        assertThat(problem.path("detail").asString()).isNotBlank();
        return problem;
    }
}
