package io.allsum.web;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.security.BearerToken;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.web.ErrorResponse;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;
import java.util.function.Predicate;

/**
 * The bearer-token check of server and worker ({@link BearerToken}): with a token, every request but the app's open
 * paths needs {@code Authorization: Bearer <token>}, else a 401 problem with a {@code WWW-Authenticate} challenge,
 * before anything reads the body. Without a token every request is let through.
 */
public final class BearerTokenFilter extends OncePerRequestFilter {

    /** Ahead of every filter that reads a request; behind the epoch header and TRACE's refusal. */
    public static final int ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    private final BearerToken token;
    private final String challenge;
    private final String holder;
    private final Predicate<String> openPath;
    private final ProblemWriter problems;

    /**
     * @param token    the token; null or blank: every request is let through
     * @param realm    the challenge's realm ({@code allsum}, {@code allsum-worker})
     * @param holder   who asks, for the detail ({@code this server})
     * @param openPath the decoded, normalised paths open without a token (health probes)
     */
    public BearerTokenFilter(String token, String realm, String holder, Predicate<String> openPath,
                             ProblemWriter problems) {
        this.token = token == null || token.isBlank() ? null : BearerToken.of(token);
        this.challenge = BearerToken.SCHEME + " realm=\"" + realm + "\"";
        this.holder = holder;
        this.openPath = openPath;
        this.problems = problems;
    }

    /** False when no token is set and every request is let through. */
    public boolean required() {
        return token != null;
    }

    /** The filter on every path at {@link #ORDER}, disabled when no token is set. */
    public FilterRegistrationBean<BearerTokenFilter> registration() {
        FilterRegistrationBean<BearerTokenFilter> registration = new FilterRegistrationBean<>(this);
        registration.setEnabled(required());
        registration.setOrder(ORDER);
        registration.addUrlPatterns("/*");
        return registration;
    }

    /** The 401 (problem and challenge) for an {@code Authorization} header value (null when absent); null if let in. */
    public ErrorResponse refusal(String authorization) {
        if (token == null) {
            return null;
        }
        return switch (token.check(authorization)) {
            case ACCEPTED -> null;
            case MISSING -> new Refusal(challenge,
                    holder + " requires the header 'Authorization: Bearer <token>' (ALLSUM_TOKEN)");
            case WRONG -> new Refusal(challenge + ", error=\"invalid_token\"",
                    "the bearer token in the Authorization header is wrong");
        };
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        ErrorResponse refused = isOpen(request) ? null : refusal(request.getHeader(HttpHeaders.AUTHORIZATION));
        if (refused == null) {
            chain.doFilter(request, response);
        } else {
            problems.write(request, response, refused);
        }
    }

    /** The servlet path is decoded and normalised by the container, so "/x/../actuator/health" tricks fail. */
    private boolean isOpen(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return openPath.test(path);
    }

    private static final class Refusal implements ErrorResponse {
        private final HttpHeaders headers = new HttpHeaders();
        private final ProblemDetail body;

        Refusal(String challenge, String detail) {
            headers.set(HttpHeaders.WWW_AUTHENTICATE, challenge);
            body = ProblemWriter.problem(ProblemCode.UNAUTHORIZED, detail);
        }

        @Override
        public HttpStatusCode getStatusCode() {
            return HttpStatusCode.valueOf(body.getStatus());
        }

        @Override
        public HttpHeaders getHeaders() {
            return headers;
        }

        @Override
        public ProblemDetail getBody() {
            return body;
        }
    }
}
