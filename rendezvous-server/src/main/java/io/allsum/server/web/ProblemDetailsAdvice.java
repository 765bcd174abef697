package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import org.eclipse.jetty.http.HttpException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
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
import tools.jackson.databind.exc.InvalidFormatException;

/**
 * Every error as an RFC 9457 ProblemDetail in {@code application/problem+json}, each with a {@code code}: Spring
 * MVC's own (malformed JSON, ill-typed fields, 404, 405, 415, ...), every feature's {@link ProblemException}s and
 * the {@code ResponseStatusException}/{@code ErrorResponseException}s of other controllers.
 */
@RestControllerAdvice
public class ProblemDetailsAdvice extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ProblemDetailsAdvice.class);

    /** The title of a problem whose body does not parse, whoever answers it. */
    public static final String MALFORMED_BODY_TITLE = "Malformed request body";

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        if (causeOf(ex, BodyTooLargeException.class) instanceof BodyTooLargeException tooLarge) {
            ProblemDetail problem = ProblemException.problem(ProblemCode.BODY_TOO_LARGE, tooLarge.getMessage());
            return handleExceptionInternal(ex, problem, headers, HttpStatus.CONTENT_TOO_LARGE, request);
        }
        ProblemDetail problem = ProblemException.problem(ProblemCode.INVALID_REQUEST, describe(ex));
        problem.setTitle(MALFORMED_BODY_TITLE);
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
                                                        HttpStatusCode status, WebRequest request) {
        String name = ex.getPropertyName() != null ? ex.getPropertyName() : "parameter";
        String expected = ex.getRequiredType() != null ? ex.getRequiredType().getSimpleName() : "another type";
        ProblemDetail problem = ProblemException.problem(ProblemCode.INVALID_REQUEST, "parameter '" + name
                + "' must be " + (expected.equals("Integer") ? "an integer" : "of type " + expected) + ", got '"
                + ex.getValue() + "'");
        problem.setTitle("Invalid parameter");
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<Object> handleUnexpected(Exception ex, WebRequest request) {
        // Jetty refuses what it cannot decode (a query string such as "wait=%zz") when a parameter is first read,
        // with its own 4xx status: the client's mistake, not the server's.
        if (ex instanceof HttpException refused && refused.getCode() >= 400 && refused.getCode() < 500) {
            ProblemDetail problem = ProblemException.problem(ProblemCode.forStatus(refused.getCode()),
                    "the request is malformed: " + refused.getReason());
            return handleExceptionInternal(ex, problem, new HttpHeaders(), HttpStatus.valueOf(refused.getCode()),
                    request);
        }
        log.error("unexpected error answering {}", describeRequest(request), ex);
        ProblemDetail problem = ProblemException.problem(ProblemCode.INTERNAL_ERROR,
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

    /** Names the offending field and what was wrong with it, from Jackson's path. */
    static String describe(HttpMessageNotReadableException ex) {
        if (!(causeOf(ex, JacksonException.class) instanceof JacksonException jackson)) {
            return ex.getMessage() != null && ex.getMessage().startsWith("Required request body is missing")
                    ? "a JSON body is required" : "the body is not readable JSON";
        }
        return describe(jackson);
    }

    /** Names the offending field and what was wrong with it, from Jackson's path. */
    public static String describe(JacksonException jackson) {
        String field = fieldPath(jackson);
        Throwable root = jackson;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String why = root instanceof IllegalArgumentException ? root.getMessage()
                : isFractionForInteger(jackson) ? "must be an integer, got " + ((InvalidFormatException) jackson).getValue()
                : firstLine(jackson.getOriginalMessage());
        if (field.isEmpty()) {
            return "malformed JSON: " + why;
        }
        return "field '" + field + "' is invalid: " + why;
    }

    /** "rank": 1.5 for an integer field (accept-float-as-int is off): say so plainly, without Jackson's hints. */
    private static boolean isFractionForInteger(JacksonException jackson) {
        if (!(jackson instanceof InvalidFormatException invalid) || !(invalid.getValue() instanceof Number)) {
            return false;
        }
        Class<?> target = invalid.getTargetType();
        return target == Integer.class || target == int.class || target == Long.class || target == long.class
                || target == Short.class || target == short.class;
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

    private static String describeRequest(WebRequest request) {
        return request instanceof NativeWebRequest nativeRequest && request instanceof ServletWebRequest servlet
                ? servlet.getRequest().getMethod() + " " + servlet.getRequest().getRequestURI()
                : request.getDescription(false);
    }
}
