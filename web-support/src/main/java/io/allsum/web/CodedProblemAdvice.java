package io.allsum.web;

import io.allsum.model.problem.ProblemCode;
import org.eclipse.jetty.http.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every Spring MVC error of server and worker as an RFC 9457 problem in {@code application/problem+json} with a
 * {@code code}: Spring MVC's own (404, 405, 415, unreadable bodies ...), {@code ErrorResponseException}s, and any
 * other exception as 500 {@code internal-error}. The server extends it with its own descriptions. Spring MVC writes
 * the bodies; {@link ProblemWriter} makes and completes them, as it does for the answers outside Spring MVC.
 */
@RestControllerAdvice
public class CodedProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(CodedProblemAdvice.class);

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> handleUnexpected(Exception ex, WebRequest request) {
        // Jetty refuses what it cannot decode (a query string such as "wait=%zz") when a parameter is first read,
        // with its own 4xx status: the client's mistake, not the server's.
        if (ex instanceof HttpException refused && refused.getCode() >= 400 && refused.getCode() < 500) {
            ProblemDetail problem = ProblemWriter.problem(refused.getCode(),
                    "the request is malformed: " + refused.getReason());
            return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.valueOf(refused.getCode()),
                    request);
        }
        log.error("unexpected error answering {}", describeRequest(request), ex);
        ProblemDetail problem = ProblemWriter.problem(ProblemCode.INTERNAL_ERROR,
                "the server failed to answer: " + ex.getClass().getSimpleName());
        return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.INTERNAL_SERVER_ERROR, request);
    }

    /**
     * Forces application/problem+json even when the client asked for application/json only, and gives every
     * problem a {@code code} (Spring MVC's own 404, 405, 415 ... come without one).
     */
    @Override
    protected ResponseEntity<Object> createResponseEntity(Object body, HttpHeaders headers, HttpStatusCode status,
                                                          WebRequest request) {
        HttpHeaders withType = new HttpHeaders();
        withType.putAll(headers);
        if (body instanceof ProblemDetail problem) {
            withType.setContentType(MediaType.APPLICATION_PROBLEM_JSON);
            ProblemWriter.completed(problem);
        }
        return new ResponseEntity<>(body, withType, status);
    }

    private static String describeRequest(WebRequest request) {
        return request instanceof ServletWebRequest servlet
                ? servlet.getRequest().getMethod() + " " + servlet.getRequest().getRequestURI()
                : request.getDescription(false);
    }
}
