package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.web.ProblemShape;
import io.allsum.worker.security.WorkerSecurityConfig;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * A worker that holds a token relays only for callers that present it: the relay must not bypass the server's auth.
 * The token is checked before the body is read, and the scheme in any case.
 */
@WebMvcTest(JobRelayController.class)
@Import({JobRelayControllerTest.WorkerSettings.class, WorkerSecurityConfig.class})
@TestPropertySource(properties = {"allsum.worker.group=relay-g", "allsum.worker.rank=0",
        "allsum.worker.world-size=2", "allsum.worker.token=s3cret"})
class JobRelayAuthorizationTest {

    @Autowired
    MockMvcTester mvc;

    @MockitoBean
    AllsumClient client;

    @Test
    void submissionWithoutTheTokenIs401WithBearerChallengeAndNotRelayed() {
        assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{}"))
                .hasStatus(401)
                .hasHeader("WWW-Authenticate", "Bearer realm=\"allsum-worker\"")
                .hasContentType("application/problem+json")
                .bodyJson().extractingPath("$.code").isEqualTo("unauthorized");
        verify(client, never()).submitJob(anyString(), any());
    }

    @Test
    void theRefusalHasTheOneProblemShape() throws Exception {
        var answer = mvc.get().uri("/jobs/j-1").exchange();
        ProblemShape.assertShape(answer.getResponse().getContentAsString(java.nio.charset.StandardCharsets.UTF_8), 401,
                "unauthorized", "/jobs/j-1");
    }

    @Test
    void bodyOfACallerWithoutTheTokenIsNotReadSoEvenGarbageIs401Not400() {
        assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{not json"))
                .hasStatus(401);
        assertThat(mvc.post().uri("/jobs").header("Authorization", "Bearer guess")
                .contentType(MediaType.APPLICATION_JSON).content("{not json"))
                .hasStatus(401);
        verify(client, never()).submitJob(anyString(), any());
    }

    @Test
    void bearerSchemeIsMatchedInAnyCase() {
        when(client.job("relay-g", "j-1")).thenReturn(null);
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "bearer s3cret")).hasStatusOk();
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "BEARER   s3cret")).hasStatusOk();
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "Basic s3cret")).hasStatus(401);
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "Bearer\ts3cret")).hasStatus(401);
    }

    @Test
    void wrongTokenIs401() {
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "Bearer guess"))
                .hasStatus(401)
                .hasHeader("WWW-Authenticate", "Bearer realm=\"allsum-worker\", error=\"invalid_token\"")
                .bodyJson().extractingPath("$.code").isEqualTo("unauthorized");
        verify(client, never()).job(anyString(), anyString());
    }

    @Test
    void theWorkersOwnTokenIsAccepted() {
        when(client.job("relay-g", "j-1")).thenReturn(null);
        assertThat(mvc.get().uri("/jobs/j-1").header("Authorization", "Bearer s3cret")).hasStatusOk();
        verify(client).job("relay-g", "j-1");
    }
}
