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
 * other exception as 500 {@code internal-error}. The server extends it with its own descriptions.
 */
@RestControllerAdvice
public class CodedProblemAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(CodedProblemAdvice.class);

    /** A problem of {@code code} with this detail: title and {@code code} member from the code. */
    public static ProblemDetail problem(ProblemCode code, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.valueOf(code.status()), detail);
        problem.setTitle(code.title());
        problem.setProperty("code", code.wireCode());
        return problem;
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> handleUnexpected(Exception ex, WebRequest request) {
        // Jetty refuses what it cannot decode (a query string such as "wait=%zz") when a parameter is first read,
        // with its own 4xx status: the client's mistake, not the server's.
        if (ex instanceof HttpException refused && refused.getCode() >= 400 && refused.getCode() < 500) {
            ProblemDetail problem = problem(ProblemCode.forStatus(refused.getCode()),
                    "the request is malformed: " + refused.getReason());
            return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.valueOf(refused.getCode()),
                    request);
        }
        log.error("unexpected error answering {}", describeRequest(request), ex);
        ProblemDetail problem = problem(ProblemCode.INTERNAL_ERROR,
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
            if (problem.getTitle() == null) {
                HttpStatus known = HttpStatus.resolve(status.value());
                problem.setTitle(known != null ? known.getReasonPhrase() : "Error");
            }
            Object wire = problem.getProperties() == null ? null : problem.getProperties().get("code");
            if (wire == null) {
                problem.setProperty("code", ProblemCode.forStatus(status.value()).wireCode());
            }
        }
        return new ResponseEntity<>(body, withType, status);
    }

    private static String describeRequest(WebRequest request) {
        return request instanceof ServletWebRequest servlet
                ? servlet.getRequest().getMethod() + " " + servlet.getRequest().getRequestURI()
                : request.getDescription(false);
    }
}
