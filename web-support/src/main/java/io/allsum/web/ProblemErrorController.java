package io.allsum.web;

import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;

/**
 * The container's error page ({@code /error}) of server and worker, replacing Spring Boot's HTML/JSON one: errors
 * that happen outside Spring MVC (a filter's {@code sendError}, a servlet failure) become problem+json. Asked for
 * directly, {@code /error} is simply a path that does not exist: 404, never 500.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    private final ProblemWriter problems;

    public ProblemErrorController(ProblemWriter problems) {
        this.problems = problems;
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (!(status instanceof Integer code) || code < 400) {
            problems.write(request, response, ProblemWriter.problem(ProblemCode.NOT_FOUND,
                    "no resource at " + request.getRequestURI()));
            return;
        }
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        String detail = message instanceof String text && !text.isBlank() ? text
                : "the request to " + (uri == null ? "this server" : uri) + " failed with status " + code;
        // The failed request's path, not /error; none when the container did not say.
        problems.write(response, ProblemWriter.problem(code, detail), uri instanceof String path ? path : null);
    }
}
