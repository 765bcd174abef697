package io.allsum.server.jobs;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

import java.time.Duration;

/**
 * The errors of the job API. Each is a {@link ResponseStatusException} whose reason becomes the ProblemDetail's
 * {@code detail}; a bad field is also named in the ProblemDetail's {@code field} property.
 */
final class JobProblems {

    private JobProblems() {
    }

    static ResponseStatusException badField(String field, String message) {
        ResponseStatusException e = new ResponseStatusException(HttpStatus.BAD_REQUEST, field + ": " + message);
        e.getBody().setProperty("field", field);
        return e;
    }

    static ResponseStatusException unknownGroup(String group) {
        return new ResponseStatusException(HttpStatus.NOT_FOUND,
                "group '" + group + "' is unknown: no rank has joined it, or it was closed or evicted");
    }

    static ResponseStatusException unknownJob(String group, String jobId) {
        return new ResponseStatusException(HttpStatus.NOT_FOUND,
                "job '" + jobId + "' is unknown in group '" + group + "' (never submitted, or dropped from the history)");
    }

    static ResponseStatusException conflict(String detail) {
        return new ResponseStatusException(HttpStatus.CONFLICT, detail);
    }

    /** 429 + Retry-After: the queue drains as jobs finish, so coming back later is the right move. */
    static ResponseStatusException tooManyUnfinished(String group, long unfinished) {
        return new RetryLater(HttpStatus.TOO_MANY_REQUESTS, "group '" + group + "' already has " + unfinished
                + " unfinished jobs, the size of its job history; wait for some to finish or cancel them", null,
                QUEUE_FULL_RETRY_AFTER);
    }

    /** 503 + Retry-After: the job history database did not answer. */
    static ResponseStatusException storeUnavailable(RuntimeException cause) {
        return new RetryLater(HttpStatus.SERVICE_UNAVAILABLE, "the job history database is unavailable: "
                + cause.getClass().getSimpleName(), cause, STORE_RETRY_AFTER);
    }

    static final Duration QUEUE_FULL_RETRY_AFTER = Duration.ofSeconds(5);
    static final Duration STORE_RETRY_AFTER = Duration.ofSeconds(2);

    /** A ResponseStatusException with a Retry-After header (the base class answers no headers). */
    static final class RetryLater extends ResponseStatusException {
        private final HttpHeaders headers = new HttpHeaders();

        RetryLater(HttpStatus status, String reason, Throwable cause, Duration after) {
            super(status, reason, cause);
            headers.set(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, after.toSeconds())));
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }
    }
}
