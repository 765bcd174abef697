package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Tomcat's last-resort error answer (requests it refuses before any servlet runs: a {@code %2F} in the path, a
 * malformed request line) as problem+json instead of Tomcat's HTML page. Installed on the host by
 * {@link TomcatProblems}. The detail names the status only: Tomcat's messages may quote the request.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    public ProblemErrorReportValve() {
        setShowReport(false);
        setShowServerInfo(false);
    }

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        ProblemCode code = ProblemCode.forStatus(status);
        String body = "{\"type\":\"about:blank\",\"title\":\"" + code.title() + "\",\"status\":" + status
                + ",\"detail\":\"the server refused the request with status " + status + " before reading it\""
                + ",\"code\":\"" + code.wireCode() + "\"}";
        try {
            response.setContentType(Protocol.PROBLEM_JSON);
            response.setCharacterEncoding("UTF-8");
            OutputStream out = response.getOutputStream();
            out.write(body.getBytes(StandardCharsets.UTF_8));
            response.finishResponse();
        } catch (IOException | IllegalStateException e) {
            // The connection is gone or the response committed: nothing more can be said.
        }
    }
}
