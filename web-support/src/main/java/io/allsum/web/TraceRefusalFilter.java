package io.allsum.web;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;

/**
 * Refuses TRACE on every path with a 405 problem: the servlet's own TRACE echoes the request, headers included
 * (an {@code Authorization} header too), and no route of server or worker takes it.
 */
public class TraceRefusalFilter extends OncePerRequestFilter {

    private final JsonMapper json;

    public TraceRefusalFilter(JsonMapper json) {
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (!"TRACE".equals(request.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        response.setStatus(ProblemCode.METHOD_NOT_ALLOWED.status());
        response.setHeader(HttpHeaders.ALLOW, "GET, HEAD, POST, PUT, DELETE, OPTIONS");
        response.setContentType(Protocol.PROBLEM_JSON);
        response.setCharacterEncoding("UTF-8");
        json.writeValue(response.getOutputStream(), ProblemCode.METHOD_NOT_ALLOWED.members(
                "TRACE is not supported", request.getRequestURI()));
    }
}
