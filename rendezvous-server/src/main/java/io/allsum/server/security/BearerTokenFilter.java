package io.allsum.server.security;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.security.BearerToken;
import io.allsum.server.dashboard.DashboardPaths;
import io.allsum.server.web.ProblemResponse;
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
        ProblemResponse refused = refusal(token.check(request.getHeader(HttpHeaders.AUTHORIZATION)));
        if (refused == null) {
            chain.doFilter(request, response);
        } else {
            problems.write(request, response, refused);
        }
    }

    /** The 401 (with its challenge) for a request whose token check gave {@code check}; null when accepted. */
    public static ProblemResponse refusal(BearerToken.Check check) {
        return switch (check) {
            case ACCEPTED -> null;
            case MISSING -> challenged(CHALLENGE,
                    "this server requires the header 'Authorization: Bearer <token>' (ALLSUM_TOKEN)");
            case WRONG -> challenged(CHALLENGE + ", error=\"invalid_token\"",
                    "the bearer token in the Authorization header is wrong");
        };
    }

    private static ProblemResponse challenged(String challenge, String detail) {
        ProblemResponse refused = ProblemResponse.of(ProblemCode.UNAUTHORIZED, detail);
        refused.getHeaders().set(HttpHeaders.WWW_AUTHENTICATE, challenge);
        return refused;
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health" tricks fail. */
    private static boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return path.equals(OPEN_PATH) || path.startsWith(OPEN_PATH + "/") || DashboardPaths.isPublic(path);
    }
}
