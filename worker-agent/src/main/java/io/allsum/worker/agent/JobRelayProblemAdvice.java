package io.allsum.worker.agent;

import io.allsum.client.AllsumClientException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.util.Map;

/** The server's errors (code and violations included) pass through the relay unchanged; an unreachable server is a 502 (504 past the deadline). */
@RestControllerAdvice(assignableTypes = JobRelayController.class)
public class JobRelayProblemAdvice {

    @ExceptionHandler(AllsumClientException.class)
    public ResponseEntity<ProblemDetail> serverProblem(AllsumClientException e) {
        ProblemDetail problem;
        if (e.status() == 0) {
            HttpStatus status = e.timedOut() ? HttpStatus.GATEWAY_TIMEOUT : HttpStatus.BAD_GATEWAY;
            problem = ProblemDetail.forStatusAndDetail(status, "rendezvous server: " + e.getMessage());
            problem.setTitle(e.timedOut() ? "Rendezvous server timed out" : "Rendezvous server unreachable");
        } else {
            problem = ProblemDetail.forStatus(e.status());
            problem.setTitle(e.title());
            problem.setDetail(e.detail());
            if (e.wireCode() != null) {
                problem.setProperty("code", e.wireCode());
            }
            if (!e.violations().isEmpty()) {
                problem.setProperty("violations", e.violations().stream()
                        .map(v -> Map.of("field", v.field(), "message", v.message())).toList());
            }
        }
        return ResponseEntity.status(problem.getStatus()).body(problem);
    }
}
