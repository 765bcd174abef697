package io.allsum.web;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.Map;

/**
 * Gives a problem+json body to the errors that actuator answers without one (an unknown health component or group
 * under {@code /actuator/health/}: a bare 404). The answers there are small, so they are held until complete.
 */
public class EmptyErrorBodyFilter extends OncePerRequestFilter {

    static final String PATHS = "/actuator/health/*";

    private final JsonMapper json;

    public EmptyErrorBodyFilter(JsonMapper json) {
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ContentCachingResponseWrapper held = new ContentCachingResponseWrapper(response);
        try {
            chain.doFilter(request, held);
        } finally {
            int status = held.getStatus();
            if (status >= 400 && held.getContentSize() == 0 && !response.isCommitted()) {
                Map<String, Object> members = ProblemCode.forStatus(status).members(
                        "no resource at " + request.getRequestURI(), request.getRequestURI());
                members.put("status", status);
                held.setContentType(Protocol.PROBLEM_JSON);
                held.setCharacterEncoding("UTF-8");
                held.getOutputStream().write(json.writeValueAsBytes(members));
            }
            held.copyBodyToResponse();
        }
    }
}
