package io.allsum.model.problem;

/**
 * One broken rule of a request, an element of a problem's {@code violations} member: {@code field} is the JSON
 * field (or query parameter) name, {@code message} what is wrong with it. Messages never repeat secrets.
 */
public record Violation(String field, String message) {

    @Override
    public String toString() {
        return field + ": " + message;
    }
}
