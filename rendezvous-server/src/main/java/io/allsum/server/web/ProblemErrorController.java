package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

import java.io.IOException;

/**
 * The container's error page ({@code /error}), replacing Spring Boot's HTML/JSON one: errors that happen outside
 * Spring MVC (a filter's {@code sendError}, a servlet failure) become problem+json. Asked for directly,
 * {@code /error} is simply a path that does not exist: 404, never 500.
 */
@RestController
class ProblemErrorController implements ErrorController {

    private final ProblemWriter problems;

    ProblemErrorController(ProblemWriter problems) {
        this.problems = problems;
    }

    @RequestMapping("${server.error.path:${error.path:/error}}")
    void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object status = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        Object uri = request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI);
        if (!(status instanceof Integer code) || code < 400) {
            problems.write(request, response, ProblemCode.NOT_FOUND,
                    "no resource at " + request.getRequestURI());
            return;
        }
        Object message = request.getAttribute(RequestDispatcher.ERROR_MESSAGE);
        ProblemCode problem = ProblemCode.forStatus(code);
        String detail = message instanceof String text && !text.isBlank() ? text
                : "the request to " + (uri == null ? "this server" : uri) + " failed with status " + code;
        problems.write(uri instanceof String path ? path : null, response, problem, detail);
        // forStatus maps an unusual status to a generic code; the status the container chose stays.
        response.setStatus(code);
    }
}
