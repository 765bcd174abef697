package io.allsum.web;

import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.json.ProblemDetailJacksonMixin;
import org.springframework.web.ErrorResponse;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.net.URI;

/**
 * The one maker and writer of RFC 9457 problems on server and worker: Spring's {@link ProblemDetail} with Spring's
 * Jackson mixin, as Spring MVC writes it: {@code detail}, {@code instance} when known, {@code status}, {@code title},
 * then {@code code} and other properties; no {@code type} (RFC 9457: {@code about:blank}).
 */
public final class ProblemWriter {

    private final JsonMapper json;

    public ProblemWriter(JsonMapper json) {
        this.json = json.rebuild().addMixIn(ProblemDetail.class, ProblemDetailJacksonMixin.class).build();
    }

    /** A problem of {@code code} with this detail: status, title and {@code code} member from the code. */
    public static ProblemDetail problem(ProblemCode code, String detail) {
        return problem(code, code.status(), detail);
    }

    /**
     * A problem for an HTTP status chosen elsewhere (the container's, Jetty's): the generic code of that status, and
     * the status itself even where that code has another ({@code 431} stays 431, code {@code invalid-request}).
     */
    public static ProblemDetail problem(int status, String detail) {
        return problem(ProblemCode.forStatus(status), status, detail);
    }

    private static ProblemDetail problem(ProblemCode code, int status, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatusCode.valueOf(status), detail);
        problem.setTitle(code.title());
        problem.setProperty("code", code.wireCode());
        return problem;
    }

    /**
     * Fills in what every problem carries and Spring MVC's own may lack: a title (the status's reason phrase) and a
     * {@code code} (the status's generic one).
     */
    public static ProblemDetail completed(ProblemDetail problem) {
        if (problem.getTitle() == null) {
            HttpStatus known = HttpStatus.resolve(problem.getStatus());
            problem.setTitle(known != null ? known.getReasonPhrase() : "Error");
        }
        if (problem.getProperties() == null || problem.getProperties().get("code") == null) {
            problem.setProperty("code", ProblemCode.forStatus(problem.getStatus()).wireCode());
        }
        return problem;
    }

    /** The JSON body of {@code problem}, its {@code instance} set to {@code instance} when it has none. */
    public byte[] body(ProblemDetail problem, String instance) {
        if (problem.getInstance() == null && instance != null) {
            problem.setInstance(uri(instance));
        }
        return json.writeValueAsBytes(completed(problem));
    }

    /** Answers {@code problem} as the whole response, its instance the request's path. */
    public void write(HttpServletRequest request, HttpServletResponse response, ProblemDetail problem)
            throws IOException {
        write(response, problem, request.getRequestURI());
    }

    /** Answers {@code problem} as the whole response, its instance {@code instance} (none when null). */
    public void write(HttpServletResponse response, ProblemDetail problem, String instance) throws IOException {
        byte[] body = body(problem, instance);
        response.setStatus(problem.getStatus());
        response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
    }

    /** As {@link #write(HttpServletRequest, HttpServletResponse, ProblemDetail)}, with the problem's headers. */
    public void write(HttpServletRequest request, HttpServletResponse response, ErrorResponse problem)
            throws IOException {
        HttpHeaders headers = problem.getHeaders();
        headers.forEach((name, values) -> values.forEach(value -> response.addHeader(name, value)));
        write(request, response, problem.getBody());
    }

    /** A request path as an instance URI; none for a path that is no URI reference (it is the client's anyway). */
    private static URI uri(String path) {
        try {
            return URI.create(path);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
