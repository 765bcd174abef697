package io.allsum.worker.agent;

import io.allsum.client.AllsumClientException;
import io.allsum.model.problem.ProblemCode;
import io.allsum.web.ProblemWriter;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

import java.util.Map;

/**
 * The server's errors (code and violations included) pass through the relay unchanged; an unreachable server is a 502
 * {@code bad-gateway} (504 {@code gateway-timeout} past the deadline). Ahead of the worker's catch-all advice.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
@RestControllerAdvice(assignableTypes = JobRelayController.class)
public class JobRelayProblemAdvice {

    @ExceptionHandler(AllsumClientException.class)
    public ResponseEntity<ProblemDetail> serverProblem(AllsumClientException e) {
        ProblemDetail problem;
        if (e.status() == 0) {
            ProblemCode code = e.timedOut() ? ProblemCode.GATEWAY_TIMEOUT : ProblemCode.BAD_GATEWAY;
            problem = ProblemWriter.problem(code, "rendezvous server: " + e.getMessage());
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
        return ResponseEntity.status(problem.getStatus()).body(ProblemWriter.completed(problem));
    }
}
