package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.allsum.web.CodedProblemAdvice;
import io.allsum.web.ProblemWriter;
import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.exc.InvalidFormatException;

/**
 * The server's errors as web-support's {@link CodedProblemAdvice} answers them (problem+json, each with a
 * {@code code}): a {@link ProblemException} as {@link ProblemResponse#of} makes it, the field that made a body
 * unreadable or a parameter ill-typed named in the detail, and a body above the limit answered 413.
 */
@RestControllerAdvice
public class ProblemDetailsAdvice extends CodedProblemAdvice {

    /** The title of a problem whose body does not parse, whoever answers it. */
    public static final String MALFORMED_BODY_TITLE = "Malformed request body";

    @ExceptionHandler(ProblemException.class)
    ResponseEntity<Object> handleProblem(ProblemException ex, WebRequest request) {
        ProblemResponse problem = ProblemResponse.of(ex);
        return handleExceptionInternal(ex, problem.getBody(), problem.getHeaders(), problem.getStatusCode(), request);
    }

    @Override
    protected ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
                                                                  HttpHeaders headers, HttpStatusCode status,
                                                                  WebRequest request) {
        if (causeOf(ex, BodyTooLargeException.class) instanceof BodyTooLargeException tooLarge) {
            ProblemDetail problem = ProblemWriter.problem(ProblemCode.BODY_TOO_LARGE, tooLarge.getMessage());
            return handleExceptionInternal(ex, problem, headers, HttpStatus.CONTENT_TOO_LARGE, request);
        }
        ProblemDetail problem = ProblemWriter.problem(ProblemCode.INVALID_REQUEST, describe(ex));
        problem.setTitle(MALFORMED_BODY_TITLE);
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
    }

    @Override
    protected ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
                                                        HttpStatusCode status, WebRequest request) {
        String name = ex.getPropertyName() != null ? ex.getPropertyName() : "parameter";
        String expected = ex.getRequiredType() != null ? ex.getRequiredType().getSimpleName() : "another type";
        ProblemDetail problem = ProblemWriter.problem(ProblemCode.INVALID_REQUEST, "parameter '" + name
                + "' must be " + (expected.equals("Integer") ? "an integer" : "of type " + expected) + ", got '"
                + ex.getValue() + "'");
        problem.setTitle("Invalid parameter");
        return handleExceptionInternal(ex, problem, headers, HttpStatus.BAD_REQUEST, request);
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
}
