package io.allsum.worker.security;

import io.allsum.worker.agent.WorkerProperties;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import io.allsum.web.BearerTokenFilter;
import io.allsum.web.ProblemWriter;
import tools.jackson.databind.json.JsonMapper;

import java.net.URI;
import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** Only the liveness and readiness probes are open when the worker holds a token (web-support's filter as the worker sets it). */
class WorkerTokenFilterTest {

    private static WorkerProperties props(String token) {
        return new WorkerProperties(URI.create("http://localhost:8080"), "g", 0, 2,
                io.allsum.worker.agent.BackendChoice.RING, null, token, Duration.ofSeconds(30), Duration.ofSeconds(2),
                Duration.ofSeconds(60), Duration.ofSeconds(10), 10, "127.0.0.1", null, true);
    }

    private static int status(BearerTokenFilter filter, String path, String authorization) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
        request.setServletPath(path);
        if (authorization != null) {
            request.addHeader("Authorization", authorization);
        }
        MockHttpServletResponse response = new MockHttpServletResponse();
        MockFilterChain chain = new MockFilterChain();
        filter.doFilter(request, response, chain);
        return chain.getRequest() != null ? 200 : response.getStatus();
    }

    @Test
    void metricsDetailedHealthAndEverythingElseNeedTheToken() throws Exception {
        BearerTokenFilter filter = WorkerSecurityConfig.tokenFilter(props("s3cret"), new ProblemWriter(JsonMapper.shared()));
        for (String path : new String[]{"/actuator/prometheus", "/actuator/health", "/actuator/health/communicator",
                "/actuator/info", "/jobs", "/error", "/actuator/health/liveness/../../prometheus"}) {
            assertThat(status(filter, path, null)).as(path).isEqualTo(401);
            assertThat(status(filter, path, "Bearer s3cret")).as(path).isEqualTo(200);
        }
    }

    @Test
    void livenessAndReadinessProbesAreOpen() throws Exception {
        BearerTokenFilter filter = WorkerSecurityConfig.tokenFilter(props("s3cret"), new ProblemWriter(JsonMapper.shared()));
        assertThat(status(filter, "/actuator/health/liveness", null)).isEqualTo(200);
        assertThat(status(filter, "/actuator/health/readiness", null)).isEqualTo(200);
    }

    @Test
    void withoutATokenTheWorkerIsOpenLikeTheServer() throws Exception {
        assertThat(status(WorkerSecurityConfig.tokenFilter(props(null), new ProblemWriter(JsonMapper.shared())), "/actuator/prometheus", null)).isEqualTo(200);
    }

    @Test
    void theSchemeInAnyCaseThenSpacesButNotATab() throws Exception {
        BearerTokenFilter filter = WorkerSecurityConfig.tokenFilter(props("s3cret"), new ProblemWriter(JsonMapper.shared()));
        assertThat(status(filter, "/jobs", "bearer s3cret")).isEqualTo(200);
        assertThat(status(filter, "/jobs", "BEARER   s3cret")).isEqualTo(200);
        assertThat(status(filter, "/jobs", "Bearer\ts3cret")).isEqualTo(401);
        assertThat(status(filter, "/jobs", "Bearers3cret")).isEqualTo(401);
        assertThat(status(filter, "/jobs", "Basic s3cret")).isEqualTo(401);
    }
}
