package io.allsum.server.jobs;

import org.springframework.http.HttpStatus;
import org.springframework.web.server.ResponseStatusException;

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

    static ResponseStatusException tooManyUnfinished(String group, int unfinished) {
        return new ResponseStatusException(HttpStatus.TOO_MANY_REQUESTS, "group '" + group + "' already has "
                + unfinished + " unfinished jobs, the size of its job history; wait for some to finish or cancel them");
    }
}
