package io.allsum.web;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

import java.io.IOException;

/**
 * Gives a problem+json body to the errors that actuator answers without one (an unknown health component or group
 * under {@code /actuator/health/}: a bare 404). The answers there are small, so they are held until complete.
 */
public class EmptyErrorBodyFilter extends OncePerRequestFilter {

    static final String PATHS = "/actuator/health/*";

    private final ProblemWriter problems;

    public EmptyErrorBodyFilter(ProblemWriter problems) {
        this.problems = problems;
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
                problems.write(request, held, ProblemWriter.problem(status,
                        "no resource at " + request.getRequestURI()));
            }
            held.copyBodyToResponse();
        }
    }
}
