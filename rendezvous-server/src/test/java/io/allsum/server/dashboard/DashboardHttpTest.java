package io.allsum.server.dashboard;

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

/** The dashboard on a server with a token: its files are public, its data is not. */
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
}
