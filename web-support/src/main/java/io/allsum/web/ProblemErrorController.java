package io.allsum.web;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.Map;

/**
 * The container's error page ({@code /error}) of server and worker, replacing Spring Boot's HTML/JSON one: errors
 * that happen outside Spring MVC (a filter's {@code sendError}, a servlet failure) become problem+json. Asked for
 * directly, {@code /error} is simply a path that does not exist: 404, never 500.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    private final JsonMapper json;

    public ProblemErrorController(JsonMapper json) {
        this.json = json;
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (!(status instanceof Integer code) || code < 400) {
            write(response, 404, ProblemCode.NOT_FOUND.members("no resource at " + request.getRequestURI(),
                    request.getRequestURI()));
            return;
        }
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        String detail = message instanceof String text && !text.isBlank() ? text
                : "the request to " + (uri == null ? "this server" : uri) + " failed with status " + code;
        // forStatus maps an unusual status to a generic code; the status the container chose stays.
        write(response, code, ProblemCode.forStatus(code).members(detail, uri instanceof String path ? path : null));
    }

    private void write(HttpServletResponse response, int status, Map<String, Object> members) throws IOException {
        members.put("status", status);
        response.setStatus(status);
        response.setContentType(Protocol.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), members);
    }
}
