package io.allsum.server.security;

import io.allsum.server.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * When a token is configured, every request but {@code /actuator/health} must carry
 * {@code Authorization: Bearer <token>}; others get 401 with {@code WWW-Authenticate: Bearer}. The tokens are
 * compared as SHA-256 digests with {@link MessageDigest#isEqual}, so the time taken tells nothing about the token,
 * not even its length.
 */
public class BearerTokenFilter extends OncePerRequestFilter {

    private static final String BEARER = "Bearer ";
    private static final String OPEN_PATH = "/actuator/health";
    private static final String CHALLENGE = "Bearer realm=\"allsum\"";

    private final byte[] expectedDigest;
    private final ProblemWriter problems;

    public BearerTokenFilter(String token, ProblemWriter problems) {
        this.expectedDigest = sha256(token);
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (isOpen(request)) {
            chain.doFilter(request, response);
            return;
        }
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE);
            problems.write(request, response, HttpStatus.UNAUTHORIZED, "Unauthorized",
                    "this server requires the header 'Authorization: Bearer <token>' (ALLSUM_TOKEN)",
                    "unauthorized");
            return;
        }
        byte[] presented = sha256(header.substring(BEARER.length()).strip());
        if (!MessageDigest.isEqual(presented, expectedDigest)) {
            response.setHeader(HttpHeaders.WWW_AUTHENTICATE, CHALLENGE + ", error=\"invalid_token\"");
            problems.write(request, response, HttpStatus.UNAUTHORIZED, "Unauthorized",
                    "the bearer token in the Authorization header is wrong", "unauthorized");
            return;
        }
        chain.doFilter(request, response);
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health" tricks fail. */
    private static boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return path.equals(OPEN_PATH) || path.startsWith(OPEN_PATH + "/");
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }
}
