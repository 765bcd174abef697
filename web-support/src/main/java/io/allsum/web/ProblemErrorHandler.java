package io.allsum.web;

import io.allsum.model.Protocol;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

import java.nio.ByteBuffer;

/**
 * Jetty's last-resort error answer (requests it refuses before any servlet runs: a malformed request line, a header
 * section above the limit) as problem+json instead of Jetty's HTML page, on server and worker
 * ({@link WebSupportAutoConfiguration}). The detail names the status only: Jetty's messages may quote the request.
 */
public class ProblemErrorHandler extends ErrorHandler {

    private final ProblemWriter problems;

    public ProblemErrorHandler(ProblemWriter problems) {
        this.problems = problems;
    }

    /** Requests the HTTP parser refused: the answer is written by the connection, from these bytes. */
    @Override
    public ByteBuffer badMessageError(int status, String reason, HttpFields.Mutable fields) {
        fields.put(HttpHeader.CONTENT_TYPE, Protocol.PROBLEM_JSON);
        return ByteBuffer.wrap(body(status));
    }

    @Override
    protected void generateResponse(Request request, Response response, int status, String message, Throwable cause,
                                    Callback callback) {
        byte[] body = body(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Protocol.PROBLEM_JSON);
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
    }

    private byte[] body(int status) {
        return problems.body(ProblemWriter.problem(status,
                "the server refused the request with status " + status + " before reading it"), null);
    }
}
