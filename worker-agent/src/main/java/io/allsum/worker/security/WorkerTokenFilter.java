package io.allsum.worker.security;

import io.allsum.model.Protocol;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.security.BearerToken;
import io.allsum.worker.agent.WorkerProperties;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.Set;

/**
 * When the worker holds a token (allsum.worker.token, ALLSUM_TOKEN), every request but the liveness and readiness
 * probes must carry {@code Authorization: Bearer <token>}, the same token the server takes and the same check
 * (shared-model's {@link BearerToken}): the job relay, detailed health (it names group and generation), metrics,
 * everything. The check runs before any controller, so no request body is read for a caller without the token; the
 * 401 is the server's problem+json with code {@code unauthorized}. Without a token the worker is open, like the server.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
public class WorkerTokenFilter extends OncePerRequestFilter {

    /** Probes for orchestrators: status only (their details are off), no token. */
    static final Set<String> OPEN_PATHS = Set.of("/actuator/health/liveness", "/actuator/health/readiness");
    private static final String CHALLENGE = BearerToken.SCHEME + " realm=\"allsum-worker\"";

    private final BearerToken token;
    private final JsonMapper json;

    public WorkerTokenFilter(WorkerProperties props, JsonMapper json) {
        this.token = props.token() == null || props.token().isBlank() ? null : BearerToken.of(props.token());
        this.json = json;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (token == null || isOpen(request)) {
            chain.doFilter(request, response);
            return;
        }
        switch (token.check(request.getHeader(HttpHeaders.AUTHORIZATION))) {
            case ACCEPTED -> chain.doFilter(request, response);
            case MISSING -> reject(request, response, CHALLENGE,
                    "this worker requires the header 'Authorization: Bearer <token>' (ALLSUM_TOKEN)");
            case WRONG -> reject(request, response, CHALLENGE + ", error=\"invalid_token\"",
                    "the bearer token in the Authorization header is wrong");
        }
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health/liveness" tricks fail. */
    private static boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return OPEN_PATHS.contains(path);
    }

    private void reject(HttpServletRequest request, HttpServletResponse response, String challenge, String detail)
            throws IOException {
        response.setStatus(ProblemCode.UNAUTHORIZED.status());
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
        response.setContentType(Protocol.PROBLEM_JSON);
        json.writeValue(response.getOutputStream(), ProblemCode.UNAUTHORIZED.members(detail, request.getRequestURI()));
    }
}
