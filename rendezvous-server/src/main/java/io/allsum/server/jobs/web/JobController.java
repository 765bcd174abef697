package io.allsum.server.jobs.web;

import io.allsum.model.Protocol;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobAssignment;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.server.jobs.JobService;
import io.allsum.server.jobs.JobsProperties;
import io.allsum.server.problem.ProblemException;
import io.allsum.server.web.LongPollWait;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.support.ServletUriComponentsBuilder;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;

/** The job API under a group (docs/jobs.md). */
@RestController
class JobController {

    /** Beyond the poll's own wait, so that the container never times a long-poll out before the service answers. */
    private static final long ASYNC_MARGIN_MILLIS = 10_000;

    private final JobService jobs;
    private final JobsProperties properties;

    JobController(JobService jobs, JobsProperties properties) {
        this.jobs = jobs;
        this.properties = properties;
    }

    @PostMapping(Protocol.JOBS_PATH)
    ResponseEntity<Job> submit(@PathVariable String group, @RequestBody JobSpec spec) {
        Job job = jobs.submit(group, spec);
        URI location = ServletUriComponentsBuilder.fromCurrentRequestUri().path("/{jobId}")
                .buildAndExpand(job.jobId()).toUri();
        return ResponseEntity.created(location).body(job);
    }

    @GetMapping(Protocol.JOBS_PATH)
    List<Job> list(@PathVariable String group) {
        return jobs.list(group);
    }

    /** Without {@code wait}, the job now; with it, the job long-poll ({@link JobService#watch}). */
    @GetMapping(Protocol.JOB_PATH)
    DeferredResult<Job> get(@PathVariable String group, @PathVariable String jobId,
                            @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer wait,
                            @RequestParam(name = Protocol.STATE_PARAM, required = false) String state,
                            @RequestParam(name = Protocol.ROWS_PARAM, required = false) Integer rows) {
        DeferredResult<Job> answer;
        if (wait == null) {
            answer = new DeferredResult<>();
            answer.setResult(jobs.get(group, jobId));
            return answer;
        }
        Duration resolved = LongPollWait.resolve(wait, properties.defaultWait(), properties.maxWait());
        answer = new DeferredResult<>(resolved.toMillis() + ASYNC_MARGIN_MILLIS);
        answer.onTimeout(() -> answer.setResult(jobs.get(group, jobId)));
        var future = jobs.watch(group, jobId, resolved, state == null ? null : jobState(state), rows);
        answer.onCompletion(() -> future.cancel(false));
        future.whenComplete((job, error) -> {
            if (error != null) {
                answer.setErrorResult(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else {
                answer.setResult(job);
            }
        });
        return answer;
    }

    private static JobState jobState(String state) {
        try {
            return JobState.fromWire(state);
        } catch (IllegalArgumentException e) {
            throw ProblemException.invalid(Protocol.STATE_PARAM, e.getMessage());
        }
    }

    @DeleteMapping(Protocol.JOB_PATH)
    Job cancel(@PathVariable String group, @PathVariable String jobId) {
        return jobs.cancel(group, jobId);
    }

    @GetMapping(Protocol.NEXT_JOB_PATH)
    DeferredResult<ResponseEntity<JobAssignment>> next(@PathVariable String group, @RequestParam int rank,
                                                       @RequestParam String instanceId,
                                                       @RequestParam(defaultValue = "0") long after,
                                                       @RequestParam(name = Protocol.WAIT_PARAM, required = false) Integer wait) {
        Duration resolved = LongPollWait.resolve(wait, properties.defaultWait(), properties.maxWait());
        DeferredResult<ResponseEntity<JobAssignment>> answer = new DeferredResult<>(
                resolved.toMillis() + ASYNC_MARGIN_MILLIS, () -> ResponseEntity.noContent().build());
        var future = jobs.next(group, rank, instanceId, after, resolved);
        answer.onCompletion(() -> future.cancel(false));
        future.whenComplete((assignment, error) -> {
            if (error != null) {
                answer.setErrorResult(error instanceof CompletionException && error.getCause() != null ? error.getCause() : error);
            } else {
                answer.setResult(assignment.map(ResponseEntity::ok).orElseGet(() -> ResponseEntity.noContent().build()));
            }
        });
        return answer;
    }

    @PostMapping(Protocol.JOB_REPORT_PATH)
    ResponseEntity<Void> report(@PathVariable String group, @PathVariable String jobId, @RequestBody RankReport report) {
        jobs.report(group, jobId, report);
        return ResponseEntity.noContent().build();
    }
}
