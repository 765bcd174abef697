package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import io.allsum.server.problem.ProblemException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.ProblemDetail;
import org.springframework.stereotype.Component;
import org.springframework.web.ErrorResponse;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes an RFC 9457 problem straight to the servlet response, for filters and error pages that answer outside
 * Spring MVC's exception handling. The members match what Spring MVC writes for a {@link ProblemException}
 * ({@link ProblemResponse}).
 */
@Component
public class ProblemWriter {

    private final JsonMapper json;

    public ProblemWriter(JsonMapper json) {
        this.json = json;
    }

    public void write(HttpServletRequest request, HttpServletResponse response, ProblemCode code, String detail)
            throws IOException {
        write(request.getRequestURI(), response, code, detail);
    }

    /** A problem as Spring MVC's advice renders it: its headers, members and properties. */
    public void write(HttpServletRequest request, HttpServletResponse response, ErrorResponse problem)
            throws IOException {
        answer(request.getRequestURI(), problem).writeTo(response);
    }

    /** {@code problem} as a complete answer, for paths that write without the servlet API. */
    public HttpAnswer answer(String instance, ProblemException problem) {
        return answer(instance, ProblemResponse.of(problem));
    }

    /** {@code problem} as a complete answer, for paths that write without the servlet API. */
    public HttpAnswer answer(String instance, ErrorResponse problem) {
        ProblemDetail body = problem.getBody();
        Map<String, Object> members = new LinkedHashMap<>();
        if (body.getType() != null) { // Spring MVC leaves out the default, about:blank
            members.put("type", body.getType().toString());
        }
        members.put("title", body.getTitle());
        members.put("status", body.getStatus());
        members.put("detail", body.getDetail());
        members.put("instance", body.getInstance() != null ? body.getInstance().toString() : instance);
        if (body.getProperties() != null) {
            members.putAll(body.getProperties());
        }
        List<String> headers = new ArrayList<>();
        problem.getHeaders().forEach((name, values) -> values.forEach(value -> {
            headers.add(name);
            headers.add(value);
        }));
        headers.add(HttpHeaders.CONTENT_TYPE);
        headers.add(Protocol.PROBLEM_JSON);
        return new HttpAnswer(body.getStatus(), headers, json.writeValueAsBytes(members));
    }

    public void write(String instance, HttpServletResponse response, ProblemCode code, String detail)
            throws IOException {
        response.setStatus(code.status());
        response.setContentType(Protocol.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), code.members(detail, instance));
    }
}
