package io.allsum.server.dashboard;

import io.allsum.model.validate.ValidationSpec;
import io.allsum.server.rendezvous.RendezvousHttp;
import io.allsum.server.rendezvous.RendezvousServerTest;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import tools.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static io.allsum.server.rendezvous.RendezvousHttp.ring;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard on a server with a token: its files are public, its data is not; a validation the page cannot start
 * answers with the problem the page shows.
 */
@RendezvousServerTest
@TestPropertySource(properties = "allsum.security.token=dash-token")
class DashboardHttpTest {

    @LocalServerPort
    int port;

    @Test
    void thePageAndItsFilesLoadWithoutATokenWithAStrictContentSecurityPolicy() {
        RendezvousHttp anonymous = new RendezvousHttp(port);
        for (String path : List.of("/dashboard/", "/dashboard/index.html", "/dashboard/app.js", "/dashboard/app.css",
                "/dashboard/favicon.svg")) {
            HttpResponse<String> response = anonymous.get(path);
            assertThat(response.statusCode()).as(path).isEqualTo(200);
            assertThat(response.headers().firstValue("Content-Security-Policy")).as(path)
                    .hasValueSatisfying(csp -> assertThat(csp).contains("script-src 'self'").contains("frame-ancestors 'none'"));
            assertThat(response.headers().firstValue("Cache-Control")).as(path).hasValue("no-store");
        }
        assertThat(anonymous.get("/dashboard/").body()).contains("<form id=\"login-form\"").contains("app.js");
        assertThat(anonymous.get("/dashboard").statusCode()).isEqualTo(302);
    }

    @Test
    void theServersRootRedirectsToThePageWithoutAToken() {
        HttpResponse<String> root = new RendezvousHttp(port).get("/");
        assertThat(root.statusCode()).isEqualTo(302);
        assertThat(root.headers().firstValue("Location")).hasValueSatisfying(
                location -> assertThat(location).endsWith("/dashboard/"));
    }

    @Test
    void theDataAndAnyOtherPathUnderDashboardNeedTheToken() {
        RendezvousHttp anonymous = new RendezvousHttp(port);
        for (String path : List.of("/dashboard/api/groups", "/dashboard/secret.txt", "/dashboard/api/../api/groups",
                "/dashboard/app.js/../../rendezvous/x")) {
            assertThat(anonymous.get(path).statusCode()).as(path).isEqualTo(401);
        }
        assertThat(new RendezvousHttp(port, "wrong").get("/dashboard/api/groups").statusCode()).isEqualTo(401);
        assertThat(new RendezvousHttp(port, "dash-token").get("/dashboard/api/groups").statusCode()).isEqualTo(200);
    }

    @Test
    void theGroupListShowsEveryLiveGroupWithItsMembersAndMissingRanks() {
        RendezvousHttp http = new RendezvousHttp(port, "dash-token");
        String group = "dash-" + UUID.randomUUID().toString().substring(0, 8);
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> joins = new ArrayList<>();
        joins.add(http.joinAsync(ring(group, 0, 3, "w0-" + group), 30));
        joins.add(http.joinAsync(ring(group, 2, 3, "w2-" + group), 30));
        RendezvousHttp.await("two ranks in " + group, java.time.Duration.ofSeconds(20),
                () -> {
                    HttpResponse<String> status = http.get("/rendezvous/" + group);
                    return status.statusCode() == 200 && RendezvousHttp.json(status).get("joinedRanks").size() == 2;
                });

        JsonNode answer = RendezvousHttp.json(http.get("/dashboard/api/groups"));
        JsonNode mine = null;
        for (JsonNode g : answer.get("groups")) {
            if (g.get("group").asString().equals(group)) {
                mine = g;
            }
        }
        assertThat(mine).as("group %s in %s", group, answer).isNotNull();
        assertThat(mine.get("state").asString()).isEqualTo("joining");
        assertThat(mine.get("missingRanks").toString()).isEqualTo("[1]");
        assertThat(mine.get("members").size()).isEqualTo(2);
        assertThat(answer.get("epoch").asString()).isNotBlank();
        http.delete("/rendezvous/" + group);
        joins.forEach(j -> j.join());
    }

    /** The body the page's "Start validation" sends with its fields as they load: the job {@code allsum validate} sends. */
    static final String VALIDATION_FORM_BODY = """
            {"op":"all_reduce","dtype":"float32","redop":"sum","root":0,"minBytes":1024,"maxBytes":4194304,
             "stepFactor":4,"iterations":10,"warmupIterations":2,"timeoutSeconds":600,"inPlace":false,"verify":true,
             "validation":{}}""";

    @Test
    void aValidationTheGroupCannotRunIsRefusedWithAProblemThatNamesWhy() {
        RendezvousHttp http = new RendezvousHttp(port, "dash-token");
        String solo = "dash-solo-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(http.join(ring(solo, 0, 1, "w0-" + solo), 10).statusCode()).isEqualTo(200);
        HttpResponse<String> one = http.post("/rendezvous/" + solo + "/jobs", VALIDATION_FORM_BODY);
        assertThat(one.statusCode()).as(one.body()).isEqualTo(400);
        assertThat(one.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/problem+json"));
        JsonNode problem = RendezvousHttp.json(one);
        assertThat(problem.get("violations").get(0).get("field").asString()).isEqualTo("validation");
        assertThat(problem.get("violations").get(0).get("message").asString()).contains("at least 2 ranks");
        assertThat(RendezvousHttp.json(http.get("/rendezvous/" + solo + "/jobs")).size()).as("nothing queued").isZero();

        String pair = "dash-pair-" + UUID.randomUUID().toString().substring(0, 8);
        var joins = List.of(http.joinAsync(ring(pair, 0, 2, "w0-" + pair), 30), http.joinAsync(ring(pair, 1, 2, "w1-" + pair), 30));
        joins.forEach(j -> assertThat(j.join().statusCode()).isEqualTo(200));
        HttpResponse<String> bad = http.post("/rendezvous/" + pair + "/jobs",
                VALIDATION_FORM_BODY.replace("\"validation\":{}", "\"validation\":{\"minShortfall\":1.5}"));
        assertThat(bad.statusCode()).as(bad.body()).isEqualTo(400);
        JsonNode field = RendezvousHttp.json(bad).get("violations").get(0);
        assertThat(field.get("field").asString()).as("a name of the form's fields").isEqualTo("validation.minShortfall");
        assertThat(field.get("message").asString()).contains("1.5");
        assertThat(http.post("/rendezvous/" + pair + "/jobs", VALIDATION_FORM_BODY).statusCode())
                .as("the form's body as it loads starts a validation").isEqualTo(201);
        http.delete("/rendezvous/" + solo);
        http.delete("/rendezvous/" + pair);
    }

    @Test
    void theValidationFormsPlaceholdersAreTheServersDefaults() {
        String page = new RendezvousHttp(port).get("/dashboard/index.html").body();
        assertThat(page).contains("name=\"validation.soloBytes\" placeholder=\"" + (ValidationSpec.DEFAULT_SOLO_BYTES >> 20) + "M\"")
                .contains("name=\"validation.pairBytes\" placeholder=\"" + (ValidationSpec.DEFAULT_PAIR_BYTES >> 20) + "M\"")
                .contains("name=\"validation.pairIterations\" inputmode=\"numeric\" placeholder=\""
                        + ValidationSpec.DEFAULT_PAIR_ITERATIONS + "\"");
    }
}
