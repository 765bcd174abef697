package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.JoinRequestValidator;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static io.allsum.server.rendezvous.RendezvousHttp.joinBody;
import static io.allsum.server.rendezvous.RendezvousHttp.nccl;
import static io.allsum.server.rendezvous.RendezvousHttp.newUniqueId;
import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/** Every 4xx of protocol v1, each a ProblemDetail whose detail names the offending field or rank. */
class RendezvousErrorsTest extends RendezvousHttpTestBase {


    @Test
    void malformedJsonIs400() {
        JsonNode problem = problem(http.post("/rendezvous", "{\"group\": \"g\", \"rank\": "), 400);
        assertThat(problem.get("detail").asString()).contains("malformed JSON");
    }

    @Test
    void missingFieldsAre400NamingEachField() {
        Map<String, Object> body = joinBody(ring("missing", 0, 2, "w0"));
        body.remove("rank");
        body.remove("instanceId");
        JsonNode problem = problem(http.post("/rendezvous", body), 400);
        assertThat(problem.get("detail").asString()).contains("rank: is required").contains("instanceId: is required");
        assertThat(problem.get("violations").findValuesAsString("field")).containsExactly("rank", "instanceId");
    }

    @Test
    void illTypedRankIs400NamingRank() {
        Map<String, Object> body = joinBody(ring("typed", 0, 2, "w0"));
        body.put("rank", "zero");
        assertThat(problem(http.post("/rendezvous", body), 400).get("detail").asString()).contains("'rank'");
    }

    @Test
    void unknownBackendIs400NamingBackend() {
        Map<String, Object> body = joinBody(ring("gloo", 0, 2, "w0"));
        body.put("backend", "gloo");
        String detail = problem(http.post("/rendezvous", body), 400).get("detail").asString();
        assertThat(detail).contains("'backend'").contains("gloo").contains("nccl").contains("ring");
    }

    @Test
    void rankOutOfRangeIs400NamingRank() {
        String detail = problem(http.join(ring("range", 2, 2, "w2"), 0), 400).get("detail").asString();
        assertThat(detail).startsWith("rank:").contains("worldSize 2");
    }

    @Test
    void worldSizeAboveTheMaximumIs400() {
        assertThat(problem(http.join(ring("huge", 0, 65537, "w0"), 0), 400).get("detail").asString())
                .contains("worldSize");
    }

    @Test
    void badGroupNameIs400NamingGroup() {
        assertThat(problem(http.join(ring("no/slashes", 0, 2, "w0"), 0), 400).get("detail").asString())
                .startsWith("group:");
        assertThat(problem(http.get("/rendezvous/" + "x".repeat(65)), 400).get("detail").asString())
                .startsWith("group:");
    }

    @Test
    void uniqueIdOfWrongLengthIs400AndNotEchoed() {
        String shortId = java.util.Base64.getEncoder().encodeToString(new byte[64]);
        HttpResponse<String> response = http.join(nccl("short-id", 0, 2, "w0", shortId), 0);
        assertThat(problem(response, 400).get("detail").asString()).contains("uniqueId").contains("64 bytes");
        assertThat(response.body()).doesNotContain(shortId);
    }

    @Test
    void uniqueIdFromAnotherRankIs400NamingTheRank() {
        JoinRequest rank1 = nccl("misplaced", 1, 2, "w1", null);
        Map<String, Object> body = joinBody(rank1);
        body.put("uniqueId", newUniqueId());
        assertThat(problem(http.post("/rendezvous", body), 400).get("detail").asString())
                .contains("uniqueId").contains("rank 1");
    }

    @Test
    void missingUniqueIdFromRankZeroIs400() {
        assertThat(problem(http.join(nccl("no-id", 0, 2, "w0", null), 0), 400).get("detail").asString())
                .contains("uniqueId: is required");
    }

    @Test
    void ringWithoutEndpointIs400AndBracketedIpv6IsAccepted() {
        Map<String, Object> body = joinBody(ring("endpoints", 0, 2, "w0"));
        body.remove("endpoint");
        assertThat(problem(http.post("/rendezvous?wait=0", body), 400).get("detail").asString())
                .contains("endpoint");
        body.put("endpoint", "[::1]:29500");
        assertThat(http.post("/rendezvous?wait=0", body).statusCode()).isEqualTo(202);
    }

    @Test
    void negativeOrNonNumericWaitIs400NamingWait() {
        assertThat(problem(http.join(ring("wait", 0, 2, "w0"), -1), 400).get("detail").asString()).contains("wait");
        HttpResponse<String> response = http.post("/rendezvous?wait=soon", joinBody(ring("wait", 0, 2, "w0")));
        assertThat(problem(response, 400).get("detail").asString()).contains("'wait'");
    }

    @Test
    void theLargestLongAsLastGenerationIs400NamingTheFieldAndTheLimitAndTheGroupStaysServed() {
        http.join(ring("last-gen", 0, 2, "w0"), 0);
        Map<String, Object> body = joinBody(ring("last-gen", 1, 2, "w1"));
        body.put("lastGeneration", Long.MAX_VALUE);

        JsonNode problem = problem(http.post("/rendezvous?wait=0", body), 400);

        assertThat(problem.get("violations").get(0).get("field").asString()).isEqualTo("lastGeneration");
        assertThat(problem.get("detail").asString()).contains(Long.toString(JoinRequestValidator.MAX_LAST_GENERATION));
        body.put("lastGeneration", JoinRequestValidator.MAX_LAST_GENERATION);
        HttpResponse<String> complete = http.post("/rendezvous?wait=0", body);
        assertThat(complete.statusCode()).isEqualTo(200);
        assertThat(RendezvousHttp.json(complete).get("generation").asLong())
                .isEqualTo(JoinRequestValidator.MAX_LAST_GENERATION + 1);
        assertThat(http.get("/rendezvous/last-gen").statusCode()).isEqualTo(200);
        http.delete("/rendezvous/last-gen");
    }

    @Test
    void unknownGroupIs404() {
        assertThat(problem(http.get("/rendezvous/nobody"), 404).get("detail").asString()).contains("nobody");
        problem(http.post("/rendezvous/nobody/heartbeat", Map.of("rank", 0, "instanceId", "w0", "generation", 1)), 404);
        problem(http.delete("/rendezvous/nobody"), 404);
        problem(http.get("/no-such-path"), 404);
    }

    @Test
    void rankHeldByAnotherLiveInstanceIs409NamingRankAndHolder() {
        http.join(ring("held", 0, 2, "w0"), 0);
        HttpResponse<String> response = http.join(ring("held", 0, 2, "intruder"), 0);
        JsonNode problem = problem(response, 409);
        assertThat(problem.get("detail").asString()).contains("rank 0").contains("w0").contains("intruder");
        assertThat(problem.get("code").asString()).isEqualTo("rank-held");
        assertThat(response.headers().firstValue("Retry-After")).isPresent();
    }

    @Test
    void worldSizeOrBackendDifferentFromTheGroupsIs409() {
        http.join(ring("shape", 0, 2, "w0"), 0);
        assertThat(problem(http.join(ring("shape", 1, 3, "w1"), 0), 409).get("detail").asString())
                .contains("worldSize 3").contains("worldSize 2");
        assertThat(problem(http.join(nccl("shape", 1, 2, "w1", null), 0), 409).get("detail").asString())
                .contains("backend nccl").contains("ring");
    }

    @Test
    void closingAGroupAnswersItsWaitingJoins410() {
        CompletableFuture<HttpResponse<String>> waiting = http.joinAsync(ring("closing", 0, 2, "w0"), 60);
        RendezvousHttp.await("the join to park", Duration.ofSeconds(20),
                () -> http.get("/rendezvous/closing").statusCode() == 200
                        && RendezvousHttp.json(http.get("/rendezvous/closing")).get("joinedRanks").size() == 1);

        assertThat(http.delete("/rendezvous/closing").statusCode()).isEqualTo(204);

        JsonNode problem = problem(waiting.join(), 410);
        assertThat(problem.get("detail").asString()).contains("closing");
        problem(http.get("/rendezvous/closing"), 404);
    }

    @Test
    void oversizedBodyIs413() {
        String padding = "x".repeat(70 * 1024);
        HttpResponse<String> response = http.post("/rendezvous", "{\"host\": \"" + padding + "\"}");
        assertThat(problem(response, 413).get("detail").asString()).contains("limit");
    }

    @Test
    void oversizedChunkedBodyIs413() {
        String padding = "x".repeat(70 * 1024);
        byte[] body = ("{\"group\": \"chunked\", \"host\": \"" + padding + "\"}").getBytes();
        HttpRequest request = http.builder("/rendezvous").header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(body)))
                .build();
        problem(http.send(request), 413);
    }

    @Test
    void wrongMethodIs405AndWrongMediaTypeIs415() {
        HttpRequest put = http.builder("/rendezvous").header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{}")).build();
        problem(http.send(put), 405);
        HttpRequest text = http.builder("/rendezvous").header("Content-Type", "text/plain")
                .POST(HttpRequest.BodyPublishers.ofString("rank=0")).build();
        problem(http.send(text), 415);
    }

    @Test
    void problemIsJsonProblemEvenWhenTheClientAcceptsOnlyJson() {
        HttpRequest request = http.builder("/rendezvous/nobody").header("Accept", "application/json").GET().build();
        problem(http.send(request), 404);
    }

    @Test
    void heartbeatFromAnInstanceThatDoesNotHoldTheRankIs409() {
        http.join(ring("hb-stranger", 0, 2, "w0"), 0);
        JsonNode problem = problem(http.post("/rendezvous/hb-stranger/heartbeat",
                Map.of("rank", 0, "instanceId", "someone-else", "generation", 1)), 409);
        assertThat(problem.get("detail").asString()).contains("rank 0").contains("someone-else");
        assertThat(problem(http.post("/rendezvous/hb-stranger/heartbeat", Map.of("rank", 0)), 400)
                .get("detail").asString()).contains("instanceId").contains("generation");
    }
}
