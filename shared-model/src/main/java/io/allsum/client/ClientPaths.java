package io.allsum.client;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/** The client's request paths: templates filled with percent-encoded segments, and their queries. */
final class ClientPaths {

    private ClientPaths() {
    }

    static String stripQuery(String path) {
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    static String group(String template, String group) {
        return template.replace("{group}", encode(Objects.requireNonNull(group, "group")));
    }

    static String job(String template, String group, String jobId) {
        return group(template, group).replace("{jobId}", encode(Objects.requireNonNull(jobId, "jobId")));
    }

    /**
     * {@code path} with the query {@code name=value&...} of {@code namesAndValues} (name, value, name, value ...),
     * each value percent-encoded as text; a pair whose value is null is left out.
     */
    static String query(String path, Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("names and values come in pairs, got " + namesAndValues.length);
        }
        StringBuilder out = new StringBuilder(path);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            if (namesAndValues[i + 1] != null) {
                out.append(out.length() == path.length() ? '?' : '&').append(namesAndValues[i]).append('=')
                        .append(encode(String.valueOf(namesAndValues[i + 1])));
            }
        }
        return out.toString();
    }

    /** Percent-encodes a path segment or query value (RFC 3986 unreserved characters pass unchanged). */
    static String encode(String value) {
        StringBuilder out = new StringBuilder(value.length());
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString();
    }
}
