package io.allsum.server.security;

import io.allsum.server.rendezvous.RendezvousHttp;
import io.allsum.server.rendezvous.RendezvousServerTest;
import io.allsum.web.ProblemShape;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** A server with a token, a small group limit, a short join deadline and a small body limit. */
@RendezvousServerTest
@TestPropertySource(properties = {
        "allsum.security.token=s3cret-token",
        "allsum.rendezvous.max-groups=3",
        "allsum.rendezvous.join-timeout=1s",
        "allsum.rendezvous.max-body-size=2KB"})
class BearerTokenAndLimitsTest {

    private static final String TOKEN = "s3cret-token";

    @LocalServerPort
    int port;

    @Test
    void everyPathButHealthNeedsTheToken() {
        RendezvousHttp anonymous = new RendezvousHttp(port);
        for (String path : new String[]{"/rendezvous/any", "/actuator/prometheus", "/actuator/metrics",
                "/rendezvous/any/jobs", "/actuator/info", "/no-such-path"}) {
            HttpResponse<String> response = anonymous.get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(401);
            assertThat(response.headers().firstValue("WWW-Authenticate")).as(path)
                    .hasValueSatisfying(value -> assertThat(value).startsWith("Bearer"));
            assertThat(response.headers().firstValue("Content-Type")).as(path)
                    .hasValueSatisfying(value -> assertThat(value).startsWith("application/problem+json"));
            ProblemShape.assertShape(response.body(), 401, "unauthorized", path);
        }
        HttpResponse<String> join = anonymous.join(ring("anon", 0, 1, "w0"), 0);
        assertThat(join.statusCode()).isEqualTo(401);
        ProblemShape.assertShape(join.body(), 401, "unauthorized", "/rendezvous");
        assertThat(anonymous.get("/actuator/health").statusCode()).isEqualTo(200);
    }

    @Test
    void aWrongTokenIs401AndTheRightOneIsAccepted() {
        HttpResponse<String> wrong = new RendezvousHttp(port, "s3cret-tokeN").get("/actuator/prometheus");
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(wrong.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
                value -> assertThat(value).contains("invalid_token"));
        assertThat(new RendezvousHttp(port, "s3cret-token-longer").get("/actuator/prometheus").statusCode())
                .isEqualTo(401);

        RendezvousHttp authorized = new RendezvousHttp(port, TOKEN);
        assertThat(authorized.get("/actuator/prometheus").statusCode()).isEqualTo(200);
        assertThat(authorized.join(ring("authorized", 0, 1, "w0"), 0).statusCode()).isEqualTo(200);
        authorized.delete("/rendezvous/authorized");
    }

    @Test
    void aTabAfterTheSchemeIsNoBearerCredential() throws Exception {
        HttpClient http = HttpClient.newHttpClient();
        URI metrics = URI.create("http://127.0.0.1:" + port + "/actuator/prometheus");
        assertThat(http.send(HttpRequest.newBuilder(metrics).header("Authorization", "Bearer\t" + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(401);
        assertThat(http.send(HttpRequest.newBuilder(metrics).header("Authorization", "bearer  " + TOKEN).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
    }

    @Test
    void theGroupLimitIs503WithRetryAfter() {
        RendezvousHttp http = new RendezvousHttp(port, TOKEN);
        for (int i = 0; i < 3; i++) {
            http.join(ring("limit-" + i, 0, 2, "w0"), 0);
        }
        HttpResponse<String> refused = http.join(ring("limit-3", 0, 2, "w0"), 0);

        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("Retry-After")).isPresent();
        assertThat(RendezvousHttp.json(refused).get("detail").asString()).contains("3 groups").contains("limit-3");
        for (int i = 0; i < 3; i++) {
            assertThat(http.delete("/rendezvous/limit-" + i).statusCode()).isEqualTo(204);
        }
        assertThat(http.join(ring("limit-3", 0, 2, "w0"), 0).statusCode()).isEqualTo(202);
        http.delete("/rendezvous/limit-3");
    }

    @Test
    void aGenerationNotCompleteByItsJoinDeadlineFailsNamingTheMissingRanks() {
        RendezvousHttp http = new RendezvousHttp(port, TOKEN);
        HttpResponse<String> waited = http.join(ring("deadline", 0, 4, "w0"), 30);

        assertThat(waited.statusCode()).isEqualTo(409);
        JsonNode problem = RendezvousHttp.json(waited);
        assertThat(problem.get("code").asString()).isEqualTo("generation-failed");
        assertThat(problem.get("detail").asString()).contains("join deadline").contains("missing ranks [1-3]");
        assertThat(http.get("/actuator/prometheus").body())
                .contains("allsum_rendezvous_generations_failed_total{cause=\"join_deadline\"} 1.0");
        http.delete("/rendezvous/deadline");
    }

    @Test
    void theBodyLimitIsConfigurable() {
        RendezvousHttp http = new RendezvousHttp(port, TOKEN);
        Map<String, Object> body = RendezvousHttp.joinBody(ring("big-body", 0, 2, "w0"));
        body.put("device", "d".repeat(3000));
        assertThat(http.post("/rendezvous", body).statusCode()).isEqualTo(413);
    }
}
