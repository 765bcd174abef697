package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.server.metrics.JoinOutcome;
import io.allsum.server.metrics.RendezvousMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.NativeWebRequest;
import org.springframework.web.context.request.ServletWebRequest;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;
import tools.jackson.core.JacksonException;

/**
 * Every error as an RFC 9457 ProblemDetail in {@code application/problem+json}: Spring MVC's own (malformed JSON,
 * ill-typed fields, 404, 405, 415, ...), the rendezvous' {@code RendezvousException}s and the
 * {@code ResponseStatusException}/{@code ErrorResponseException}s of other controllers.
 */
@RestControllerAdvice
public class ProblemDetailsAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemDetailsAdvice.class);

    private final RendezvousMetrics metrics;

    public ProblemDetailsAdvice(RendezvousMetrics metrics) {
        this.metrics = metrics;
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        countInvalidJoin(request);
        if (causeOf(ex, BodyTooLargeException.class) instanceof BodyTooLargeException tooLarge) {
            ProblemDetail problem = problem(HttpStatus.CONTENT_TOO_LARGE, "Request body too large",
                    tooLarge.getMessage(), "body-too-large");
            return handleExceptionInternal(ex, problem, headers, HttpStatus.CONTENT_TOO_LARGE, request);
        }
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Malformed request body", describe(ex),
                "invalid-request");
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
                                                        HttpStatusCode status, WebRequest request) {
        String name = ex.getPropertyName() != null ? ex.getPropertyName() : "parameter";
        String expected = ex.getRequiredType() != null ? ex.getRequiredType().getSimpleName() : "another type";
        ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "Invalid parameter", "parameter '" + name
                + "' must be " + (expected.equals("Integer") ? "an integer" : "of type " + expected) + ", got '"
                + ex.getValue() + "'", "invalid-request");
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> handleUnexpected(Exception ex, WebRequest request) {
        log.error("unexpected error answering {}", describeRequest(request), ex);
        ProblemDetail problem = problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal server error",
                "the server failed to answer: " + ex.getClass().getSimpleName(), "internal-error");
        return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.INTERNAL_SERVER_ERROR, request);
    }

    /** Forces application/problem+json even when the client asked for application/json only. */
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
        }
        return new ResponseEntity<>(body, withType, status);
    }

    private void countInvalidJoin(WebRequest request) {
        if (request instanceof ServletWebRequest servlet
                && HttpMethod.POST.matches(servlet.getRequest().getMethod())
                && Protocol.RENDEZVOUS_PATH.equals(servlet.getRequest().getServletPath())) {
            metrics.joinAnswered(JoinOutcome.INVALID);
        }
    }

    /** Names the offending field and what was wrong with it, from Jackson's path. */
    static String describe(HttpMessageNotReadableException ex) {
        if (!(causeOf(ex, JacksonException.class) instanceof JacksonException jackson)) {
            return ex.getMessage() != null && ex.getMessage().startsWith("Required request body is missing")
                    ? "a JSON body is required" : "the body is not readable JSON";
        }
        String field = fieldPath(jackson);
        Throwable root = jackson;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root instanceof IllegalArgumentException ? root.getMessage() : firstLine(jackson.getOriginalMessage());
        if (field.isEmpty()) {
            return "malformed JSON: " + why;
        }
        return "field '" + field + "' is invalid: " + why;
    }

    private static String fieldPath(JacksonException jackson) {
        StringBuilder path = new StringBuilder();
        for (JacksonException.Reference reference : jackson.getPath()) {
            if (reference.getPropertyName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(reference.getPropertyName());
            } else if (reference.getIndex() >= 0) {
                path.append('[').append(reference.getIndex()).append(']');
            }
        }
        return path.toString();
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "unreadable value";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }

    private static Throwable causeOf(Throwable ex, Class<? extends Throwable> type) {
        for (Throwable t = ex; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return t;
            }
        }
        return null;
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail, String code) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        problem.setProperty("code", code);
        return problem;
    }

    private static String describeRequest(WebRequest request) {
        return request instanceof NativeWebRequest nativeRequest && request instanceof ServletWebRequest servlet
                ? servlet.getRequest().getMethod() + " " + servlet.getRequest().getRequestURI()
                : request.getDescription(false);
    }
}
