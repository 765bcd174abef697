package io.allsum.worker.security;

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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;

/**
 * When the worker holds a token (allsum.worker.token, ALLSUM_TOKEN), every request but the liveness and readiness
 * probes must carry {@code Authorization: Bearer <token>} (scheme in any case, as RFC 9110 says), the same token
 * the server takes: the job relay, detailed health (it names group and generation), metrics, everything. The check
 * runs before any controller, so no request body is read for a caller without the token. Tokens are compared as
 * SHA-256 digests in constant time. Without a token the worker is open, like the server.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
public class WorkerTokenFilter extends OncePerRequestFilter {

    /** Probes for orchestrators: status only (their details are off), no token. */
    static final Set<String> OPEN_PATHS = Set.of("/actuator/health/liveness", "/actuator/health/readiness");
    private static final String CHALLENGE = "Bearer realm=\"allsum-worker\"";

    private final byte[] expectedDigest;

    public WorkerTokenFilter(WorkerProperties props) {
        this.expectedDigest = props.token() == null || props.token().isBlank() ? null : sha256(props.token());
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (expectedDigest == null || isOpen(request)) {
            chain.doFilter(request, response);
            return;
        }
        String presented = bearerToken(request.getHeader(HttpHeaders.AUTHORIZATION));
        if (presented == null) {
            reject(response, CHALLENGE, "missing bearer token (Authorization: Bearer <ALLSUM_TOKEN>)");
            return;
        }
        if (!MessageDigest.isEqual(sha256(presented), expectedDigest)) {
            reject(response, CHALLENGE + ", error=\"invalid_token\"", "wrong bearer token");
            return;
        }
        chain.doFilter(request, response);
    }

    /** The token of a Bearer credential, the scheme matched case-insensitively; null when there is none. */
    static String bearerToken(String header) {
        if (header == null) {
            return null;
        }
        String value = header.strip();
        int space = 0;
        while (space < value.length() && !Character.isWhitespace(value.charAt(space))) {
            space++;
        }
        if (space == value.length() || !value.substring(0, space).equalsIgnoreCase("Bearer")) {
            return null;
        }
        String token = value.substring(space).strip();
        return token.isEmpty() ? null : token;
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health/liveness" tricks fail. */
    private static boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return OPEN_PATHS.contains(path);
    }

    private static void reject(HttpServletResponse response, String challenge, String detail) throws IOException {
        response.setStatus(HttpServletResponse.SC_UNAUTHORIZED);
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, challenge);
        response.setContentType("application/problem+json");
        // detail is one of two constants: no escaping needed
        response.getOutputStream().write(("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                + "\"detail\":\"" + detail + "\"}").getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
