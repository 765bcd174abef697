package io.allsum.web;

import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Refuses TRACE on every path with a 405 problem: the servlet's own TRACE echoes the request, headers included
 * (an {@code Authorization} header too), and no route of server or worker takes it.
 */
public class TraceRefusalFilter extends OncePerRequestFilter {

    private final ProblemWriter problems;

    public TraceRefusalFilter(ProblemWriter problems) {
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!"TRACE".equals(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        response.setHeader(HttpHeaders.ALLOW, "GET, HEAD, POST, PUT, DELETE, OPTIONS");
        problems.write(request, response, ProblemWriter.problem(ProblemCode.METHOD_NOT_ALLOWED,
                "TRACE is not supported"));
    }
}
