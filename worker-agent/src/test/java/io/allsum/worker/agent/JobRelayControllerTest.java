package io.allsum.worker.agent;

import io.allsum.web.ProblemShape;
import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.testing.UnsetJobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.assertj.MockMvcTester;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

@WebMvcTest(JobRelayController.class)
@Import(JobRelayControllerTest.WorkerSettings.class)
@TestPropertySource(properties = {"allsum.worker.group=relay-g", "allsum.worker.rank=0",
        "allsum.worker.world-size=2"})
class JobRelayControllerTest {

    /** Web slices skip the application's properties scan; the relay only needs the worker's group. */
    @EnableConfigurationProperties(WorkerProperties.class)
    static class WorkerSettings {
    }

    @Autowired
    MockMvcTester mvc;

    @MockitoBean
    AllsumClient client;

    private static Job queued(String id, JobSpec spec) {
        return new Job(id, "relay-g", 3, null, spec, JobState.QUEUED, Instant.parse("2026-01-01T00:00:00Z"), null,
                null, null, List.of(), null, List.of());
    }

    @Test
    void submittedJobIsForwardedToTheGroupAndAnswered201WithTheServersJob() {
        when(client.submitJob(eq("relay-g"), any())).thenAnswer(i -> queued("j-1", i.getArgument(1)));

        assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON)
                .content("{\"op\":\"all_gather\",\"dtype\":\"int8\",\"minBytes\":8,\"maxBytes\":64}"))
                .hasStatus(201)
                .hasHeader("Location", "/jobs/j-1")
                .bodyJson().extractingPath("$.jobId").isEqualTo("j-1");

        // Forwarded as parsed: the fields the body leaves out stay null, for the server's defaults.
        verify(client).submitJob(eq("relay-g"), eq(UnsetJobSpec.builder().op(CollectiveOp.ALL_GATHER)
                .dtype(DataType.INT8).sizes(8L, 64L).build()));
    }

    @Test
    void jobStatusIsForwarded() {
        when(client.job("relay-g", "j-9")).thenReturn(queued("j-9", JobSpec.allSum(8)));

        assertThat(mvc.get().uri("/jobs/j-9")).hasStatusOk()
                .bodyJson().extractingPath("$.state").isEqualTo("queued");
    }

    @Test
    void serverProblemsPassThroughAsProblemDetails() {
        when(client.job("relay-g", "nope")).thenThrow(new AllsumClientException(404, "Not Found",
                "no job 'nope' in group 'relay-g'", false, null));

        assertThat(mvc.get().uri("/jobs/nope"))
                .hasStatus(404)
                .hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyJson().extractingPath("$.detail").isEqualTo("no job 'nope' in group 'relay-g'");
    }

    @Test
    void relayedProblemsKeepTheirCodeAndViolations() {
        when(client.submitJob(eq("relay-g"), any())).thenThrow(new AllsumClientException(400, "Invalid request",
                "maxBytes: above the limit", ProblemCode.INVALID_REQUEST.wireCode(),
                List.of(new Violation("maxBytes", "above the limit"))));

        var answer = assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{}"))
                .hasStatus(400)
                .bodyJson();
        answer.extractingPath("$.code").isEqualTo("invalid-request");
        answer.extractingPath("$.violations[0].field").isEqualTo("maxBytes");
    }

    @Test
    void unreachableServerIsABadGateway() throws Exception {
        when(client.submitJob(eq("relay-g"), any())).thenThrow(new AllsumClientException(0, "Unreachable",
                "connection refused: rdv:8080", false, null));

        assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{}"))
                .hasStatus(502)
                .hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyJson().extractingPath("$.code").isEqualTo("bad-gateway");
        ProblemShape.assertShape(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{}")
                .exchange().getResponse().getContentAsString(java.nio.charset.StandardCharsets.UTF_8), 502,
                "bad-gateway", "/jobs");
    }

    @Test
    void serverPastTheDeadlineIsAGatewayTimeout() {
        when(client.job("relay-g", "j-1")).thenThrow(new AllsumClientException(0, "Timed out",
                "no answer from rdv:8080 within 10s", true, null));

        var answer = assertThat(mvc.get().uri("/jobs/j-1")).hasStatus(504).bodyJson();
        answer.extractingPath("$.code").isEqualTo("gateway-timeout");
        answer.extractingPath("$.detail").asString().contains("no answer");
    }

    @Test
    void malformedBodyIsA400Problem() {
        assertThat(mvc.post().uri("/jobs").contentType(MediaType.APPLICATION_JSON).content("{\"op\":"))
                .hasStatus(400)
                .hasContentType(MediaType.APPLICATION_PROBLEM_JSON)
                .bodyJson().extractingPath("$.code").isEqualTo("invalid-request");
    }
}
