package io.allsum.server.security;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.security.BearerToken;
import io.allsum.server.dashboard.DashboardPaths;
import io.allsum.server.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * When a token is configured, every request but {@code /actuator/health} and the dashboard's static files (page,
 * script, style: no data; {@link DashboardPaths}) must carry
 * {@code Authorization: Bearer <token>}; others get 401 with {@code WWW-Authenticate: Bearer}. The check itself is
 * shared-model's {@link BearerToken} (constant-time, scheme case-insensitive), the one the worker uses too.
 */
public class BearerTokenFilter extends OncePerRequestFilter {

    private static final String OPEN_PATH = "/actuator/health";
    private static final String CHALLENGE = BearerToken.SCHEME + " realm=\"allsum\"";

    private final BearerToken token;
    private final ProblemWriter problems;

    public BearerTokenFilter(BearerToken token, ProblemWriter problems) {
        this.token = token;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (isOpen(request)) {
            chain.doFilter(request, response);
            return;
        }
        switch (token.check(request.getHeader(HttpHeaders.AUTHORIZATION))) {
            case ACCEPTED -> chain.doFilter(request, response);
            case MISSING -> {
                response.setHeader(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE);
                problems.write(request, response, ProblemCode.UNAUTHORIZED,
                        "this server requires the header 'Authorization: Bearer <token>' (ALLSUM_TOKEN)");
            }
            case WRONG -> {
                response.setHeader(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE + ", error=\"invalid_token\"");
                problems.write(request, response, ProblemCode.UNAUTHORIZED,
                        "the bearer token in the Authorization header is wrong");
            }
        }
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health" tricks fail. */
    private static boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return path.equals(OPEN_PATH) || path.startsWith(OPEN_PATH + "/") || DashboardPaths.isPublic(path);
    }
}
