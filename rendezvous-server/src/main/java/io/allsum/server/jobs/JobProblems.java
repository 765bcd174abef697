package io.allsum.server.jobs;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;
import io.allsum.server.problem.ProblemException;

import java.time.Duration;

/** The errors of the job API, each a {@link ProblemException} with a job (or shared) {@link ProblemCode}. */
final class JobProblems {

    static final Duration QUEUE_FULL_RETRY_AFTER = Duration.ofSeconds(5);
    static final Duration STORE_RETRY_AFTER = Duration.ofSeconds(2);

    private JobProblems() {
    }

    /** 400 invalid-request naming the field in {@code violations}. */
    static ProblemException badField(String field, String message) {
        return ProblemException.invalid(field, message);
    }

    static ProblemException badField(Violation violation) {
        return ProblemException.invalid(violation);
    }

    static ProblemException unknownGroup(String group) {
        return new ProblemException(ProblemCode.UNKNOWN_GROUP,
                "group '" + group + "' is unknown: no rank has joined it, or it was closed or evicted");
    }

    static ProblemException unknownJob(String group, String jobId) {
        return new ProblemException(ProblemCode.UNKNOWN_JOB,
                "job '" + jobId + "' is unknown in group '" + group + "' (never submitted, or dropped from the history)");
    }

    /** 409 job-conflict: the job's state does not allow the request (cancel a running job, a report too early). */
    static ProblemException conflict(String detail) {
        return new ProblemException(ProblemCode.JOB_CONFLICT, detail);
    }

    /** 409 generation-failed: the poller's generation failed; it must join the next one. */
    static ProblemException generationFailed(String detail) {
        return new ProblemException(ProblemCode.GENERATION_FAILED, detail);
    }

    /** 409 not-a-member: the caller is no member of the group's current generation. */
    static ProblemException notAMember(String detail) {
        return new ProblemException(ProblemCode.NOT_A_MEMBER, detail);
    }

    /** 429 + Retry-After: the queue drains as jobs finish, so coming back later is the right move. */
    static ProblemException tooManyUnfinished(String group, long unfinished) {
        return new ProblemException(ProblemCode.TOO_MANY_JOBS, "group '" + group + "' already has " + unfinished
                + " unfinished jobs, the size of its job history; wait for some to finish or cancel them")
                .retryAfter(QUEUE_FULL_RETRY_AFTER);
    }

    /** 503 + Retry-After: the job history database did not answer. */
    static ProblemException storeUnavailable(RuntimeException cause) {
        return new ProblemException(ProblemCode.SERVICE_UNAVAILABLE, "the job history database is unavailable: "
                + cause.getClass().getSimpleName(), cause).retryAfter(STORE_RETRY_AFTER);
    }
}
