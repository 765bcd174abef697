package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.net.URI;
import java.util.List;

/**
 * Lets users submit jobs to any worker: each call is relayed to the rendezvous server under this worker's group,
 * and the server's answer (or its ProblemDetail, see {@link JobRelayProblemAdvice}) comes back as is. When the
 * worker holds a token, callers must present the same one: the relay must not open the group to anyone who can
 * reach a worker's port. The security package's {@code WorkerSecurityConfig} checks it, before any body is read.
 */
@RestController
@RequestMapping("/jobs")
public class JobRelayController {

    private final AllsumClient client;
    private final String group;

    public JobRelayController(AllsumClient client, WorkerProperties props) {
        this.client = client;
        this.group = props.group();
    }

    @PostMapping
    public ResponseEntity<Job> submit(@RequestBody JobSpec spec) {
        Job job = client.submitJob(group, spec);
        return ResponseEntity.created(URI.create("/jobs/" + job.jobId())).body(job);
    }

    @GetMapping
    public List<Job> jobs() {
        return client.jobs(group);
    }

    @GetMapping("/{jobId}")
    public Job job(@PathVariable String jobId) {
        return client.job(group, jobId);
    }

    @DeleteMapping("/{jobId}")
    public Job cancel(@PathVariable String jobId) {
        return client.cancelJob(group, jobId);
    }
}
