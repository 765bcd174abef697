package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import io.allsum.web.ProblemWriter;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponse;

import java.time.Duration;

/**
 * A problem as the server answers it over HTTP: the RFC 9457 body ({@code status}, {@code title} (the code's),
 * {@code detail}, {@code code}, {@code violations} when there are any) and its headers ({@code Retry-After}).
 * {@link #of} is the one conversion of a {@link ProblemException}, for Spring MVC and the join path alike; web code
 * adds what only HTTP has (a challenge, an {@code Allow}, another title) to the result.
 */
public final class ProblemResponse implements ErrorResponse {

    private final ProblemCode code;
    private final ProblemDetail body;
    private final HttpHeaders headers = new HttpHeaders();

    private ProblemResponse(ProblemCode code, ProblemDetail body) {
        this.code = code;
        this.body = body;
    }

    /** {@code problem} as it is answered. */
    public static ProblemResponse of(ProblemException problem) {
        ProblemResponse response = of(problem.code(), problem.detail());
        if (!problem.violations().isEmpty()) { // shared-model Violations: {field, message}
            response.body.setProperty("violations", problem.violations());
        }
        problem.retryAfter().ifPresent(delay -> response.headers.set(HttpHeaders.RETRY_AFTER, seconds(delay)));
        return response;
    }

    /** A problem of {@code code} with this detail; alone, for a problem only the web layer has. */
    public static ProblemResponse of(ProblemCode code, String detail) {
        return new ProblemResponse(code, ProblemWriter.problem(code, detail));
    }

    /** {@code answer} (body and headers) as a problem of {@code code}, for a problem web-support made. */
    public static ProblemResponse of(ProblemCode code, ErrorResponse answer) {
        ProblemResponse response = new ProblemResponse(code, answer.getBody());
        response.headers.putAll(answer.getHeaders());
        return response;
    }

    /** {@code Retry-After}: the earliest time a retry can succeed, in whole seconds (at least 1). */
    private static String seconds(Duration delay) {
        return Long.toString(Math.max(1, (delay.toMillis() + 999) / 1000));
    }

    public ProblemCode code() {
        return code;
    }

    @Override
    public HttpStatusCode getStatusCode() {
        return HttpStatusCode.valueOf(code.status());
    }

    @Override
    public HttpHeaders getHeaders() {
        return headers;
    }

    @Override
    public ProblemDetail getBody() {
        return body;
    }
}
