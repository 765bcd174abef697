package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.ErrorResponseException;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;

/**
 * Lets users submit jobs to any worker: each call is relayed to the rendezvous server under this worker's group,
 * and the server's answer (or its ProblemDetail, see {@link JobRelayProblemAdvice}) comes back as is. When the
 * worker holds a token, callers must present the same one: the relay must not open the group to anyone who can
 * reach a worker's port.
 */
@RestController
@RequestMapping("/jobs")
public class JobRelayController {

    private static final String AUTHORIZATION = "Authorization";

    private final AllsumClient client;
    private final String group;
    private final byte[] expectedAuthorization;

    public JobRelayController(AllsumClient client, WorkerProperties props) {
        this.client = client;
        this.group = props.group();
        this.expectedAuthorization = props.token() == null || props.token().isBlank() ? null
                : ("Bearer " + props.token()).getBytes(StandardCharsets.UTF_8);
    }

    private void authorize(String authorization) {
        if (expectedAuthorization == null) {
            return;
        }
        // Constant-time comparison, as on the server.
        if (authorization == null
                || !MessageDigest.isEqual(expectedAuthorization, authorization.getBytes(StandardCharsets.UTF_8))) {
            ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.UNAUTHORIZED,
                    authorization == null ? "missing bearer token (Authorization: Bearer <ALLSUM_TOKEN>)"
                            : "wrong bearer token");
            problem.setTitle("Unauthorized");
            ErrorResponseException e = new ErrorResponseException(HttpStatus.UNAUTHORIZED, problem, null);
            e.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, "Bearer");
            throw e;
        }
    }

    @PostMapping
    public ResponseEntity<Job> submit(@RequestHeader(name = AUTHORIZATION, required = false) String authorization,
                                      @RequestBody JobSpec spec) {
        authorize(authorization);
        Job job = client.submitJob(group, spec);
        return ResponseEntity.created(URI.create("/jobs/" + job.jobId())).body(job);
    }

    @GetMapping
    public List<Job> jobs(@RequestHeader(name = AUTHORIZATION, required = false) String authorization) {
        authorize(authorization);
        return client.jobs(group);
    }

    @GetMapping("/{jobId}")
    public Job job(@RequestHeader(name = AUTHORIZATION, required = false) String authorization,
                   @PathVariable String jobId) {
        authorize(authorization);
        return client.job(group, jobId);
    }

    @DeleteMapping("/{jobId}")
    public Job cancel(@RequestHeader(name = AUTHORIZATION, required = false) String authorization,
                   @PathVariable String jobId) {
        authorize(authorization);
        return client.cancelJob(group, jobId);
    }
}
