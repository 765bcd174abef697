package io.allsum.client;

import io.allsum.model.problem.Violation;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The client's reading of an error answer: an RFC 9457 problem if it is one, else its status and text. */
final class ProblemAnswers {

    private static final int MAX_DETAIL_CHARS = 500;

    private ProblemAnswers() {
    }

    /**
     * The error answer as an exception: status, title, detail, code and violations from the problem JSON, else the
     * body text.
     */
    static AllsumClientException problem(JsonMapper json, int status, byte[] body, String method, String path) {
        String title = null;
        String detail = null;
        String code = null;
        List<Violation> violations = new ArrayList<>();
        try {
            JsonNode node = json.readTree(body);
            if (node != null && node.isObject()) {
                title = text(node, "title");
                detail = text(node, "detail");
                code = text(node, "code");
                for (JsonNode violation : node.path("violations")) {
                    String field = text(violation, "field");
                    String message = text(violation, "message");
                    if (field != null && message != null) {
                        violations.add(new Violation(field, message));
                    }
                }
            }
        } catch (JacksonException notJson) {
            // not a problem document: the body text below says what went wrong
        }
        if (title == null || title.isBlank()) {
            title = reasonPhrase(status);
        }
        if (detail == null || detail.isBlank()) {
            String text = new String(body, StandardCharsets.UTF_8).strip();
            detail = text.isEmpty() ? method + " " + ClientPaths.stripQuery(path) + " answered " + status
                    : text.length() > MAX_DETAIL_CHARS ? text.substring(0, MAX_DETAIL_CHARS) + "..." : text;
        }
        return new AllsumClientException(status, title, detail, code, violations);
    }

    private static String text(JsonNode node, String member) {
        JsonNode value = node.path(member);
        return value.isString() ? value.stringValue() : null;
    }

    static String reasonPhrase(int status) {
        return switch (status) {
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 409 -> "Conflict";
            case 410 -> "Gone";
            case 413 -> "Content Too Large";
            case 415 -> "Unsupported Media Type";
            case 429 -> "Too Many Requests";
            case 500 -> "Internal Server Error";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            default -> "HTTP " + status;
        };
    }

    /** Retry-After in delta-seconds (what the server sends); an HTTP-date is ignored in favour of backoff. */
    static Optional<Duration> retryAfter(HttpHeaders headers) {
        return headers.firstValue("Retry-After").flatMap(value -> {
            try {
                long seconds = Long.parseLong(value.strip());
                return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }
}
