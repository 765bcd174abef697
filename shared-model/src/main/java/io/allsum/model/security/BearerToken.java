package io.allsum.model.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The shared bearer token ({@code ALLSUM_TOKEN}) and the one check of an {@code Authorization} header against it.
 * The credential is {@code Bearer 1*SP token} (RFC 6750, section 2.1): the scheme in any case (RFC 9110, section
 * 11.1), then spaces only; a tab after the scheme is no Bearer credential. The tokens are compared as SHA-256 digests
 * with {@link MessageDigest#isEqual}, so the time taken tells nothing about the token, not even its length.
 * {@link #toString()} never prints the token.
 */
public final class BearerToken {

    public static final String SCHEME = "Bearer";
    private static final String PREFIX = SCHEME + " ";

    private final String token;
    private final byte[] digest;

    private BearerToken(String token) {
        this.token = token;
        this.digest = sha256(token);
    }

    /** @throws IllegalArgumentException for a null or blank token */
    public static BearerToken of(String token) {
        if (token == null || token.isBlank()) {
            throw new IllegalArgumentException("a bearer token must not be blank");
        }
        return new BearerToken(token);
    }

    /** What an {@code Authorization} header said, compared with the token. */
    public enum Check {
        /** The header carries this token. */
        ACCEPTED,
        /** No header, or not the Bearer scheme followed by a space. */
        MISSING,
        /** A Bearer header with another token. */
        WRONG
    }

    /** Checks one {@code Authorization} header value (null when absent). */
    public Check check(String authorizationHeader) {
        if (authorizationHeader == null
                || !authorizationHeader.regionMatches(true, 0, PREFIX, 0, PREFIX.length())) {
            return Check.MISSING;
        }
        int start = PREFIX.length();
        while (start < authorizationHeader.length() && authorizationHeader.charAt(start) == ' ') {
            start++;
        }
        if (start < authorizationHeader.length() && authorizationHeader.charAt(start) == '\t') {
            return Check.MISSING;
        }
        byte[] presented = sha256(authorizationHeader.substring(start).strip());
        return MessageDigest.isEqual(presented, digest) ? Check.ACCEPTED : Check.WRONG;
    }

    /** The header value a client sends: {@code Bearer <token>}. */
    public String authorizationHeader() {
        return PREFIX + token;
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
    }

    @Override
    public String toString() {
        return "BearerToken[<redacted>]";
    }
}
