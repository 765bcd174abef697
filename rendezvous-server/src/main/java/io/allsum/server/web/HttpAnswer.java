package io.allsum.server.web;

import io.allsum.web.ProblemWriter;
import jakarta.servlet.http.HttpServletResponse;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.web.ErrorResponse;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A complete answer made before it is written: status, headers and the whole body, written through the servlet API
 * or straight to Jetty's core response (the join endpoint), the same bytes either way.
 *
 * @param headers name, value, name, value ... (Content-Type included, Content-Length added when written)
 */
public record HttpAnswer(int status, List<String> headers, byte[] body) {

    public HttpAnswer {
        if (headers.size() % 2 != 0) {
            throw new IllegalArgumentException("headers come in name/value pairs: " + headers);
        }
    }

    /** {@code problem} as a complete answer, its headers included, for paths that write without the servlet API. */
    public static HttpAnswer problem(ProblemWriter problems, String instance, ErrorResponse problem) {
        List<String> headers = new ArrayList<>();
        problem.getHeaders().forEach((name, values) -> values.forEach(value -> {
            headers.add(name);
            headers.add(value);
        }));
        headers.add(HttpHeaders.CONTENT_TYPE);
        headers.add(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
        byte[] body = problems.body(problem.getBody(), instance);
        return new HttpAnswer(problem.getBody().getStatus(), headers, body);
    }

    /** Writes and flushes the answer; the caller completes the request (or the container does). */
    public void writeTo(HttpServletResponse response) throws IOException {
        response.setStatus(status);
        for (int i = 0; i < headers.size(); i += 2) {
            response.addHeader(headers.get(i), headers.get(i + 1));
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }

    /**
     * Writes the answer as the whole response, without blocking: {@code done} completes when the bytes are written
     * (or the write failed), which for a core handler ends the request.
     */
    public void writeTo(Response response, Callback done) {
        response.setStatus(status);
        HttpFields.Mutable fields = response.getHeaders();
        for (int i = 0; i < headers.size(); i += 2) {
            fields.add(headers.get(i), headers.get(i + 1));
        }
        fields.put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), done);
    }
}
