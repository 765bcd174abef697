package io.allsum.deploy.monitoring;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Just enough PromQL to check a dashboard against a scrape: the metric selectors of an expression, each with the
 * labels its matchers name and the labels it is grouped by. An aggregation's {@code by (...)} / {@code without (...)}
 * applies to the selectors inside it; {@code on}, {@code ignoring} and {@code group_left/right} to every selector of
 * the expression. Grafana's {@code label_values(selector, label)} variable query is read too. Strings, range and
 * subquery brackets and Grafana's {@code $variables} are skipped; a selector without a metric name
 * ({@code {__name__=~...}}) is refused, since no scrape could confirm it.
 */
final class PromQl {

    /** A metric selector: its name, the labels its matchers use, the labels an aggregation groups it by. */
    record Selector(String metric, Set<String> labels, Set<String> groupedBy) {

        Selector(String metric, Set<String> labels) {
            this(metric, labels, Set.of());
        }

        Selector groupedBy(Set<String> more) {
            Set<String> all = new LinkedHashSet<>(groupedBy);
            all.addAll(more);
            return new Selector(metric, labels, Set.copyOf(all));
        }
    }

    /** What an expression reads. */
    record Reads(List<Selector> selectors) {

        /** Every label some selector is grouped by. */
        Set<String> groupingLabels() {
            Set<String> all = new LinkedHashSet<>();
            selectors.forEach(s -> all.addAll(s.groupedBy()));
            return all;
        }
    }

    private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar",
            "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");
    private static final Set<String> GROUPING = Set.of("by", "without");
    private static final Set<String> MATCHING = Set.of("on", "ignoring", "group_left", "group_right");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "atan2");

    private final String s;
    private final int end;
    private int i;
    private final List<Selector> selectors = new ArrayList<>();
    private final Set<String> matching = new LinkedHashSet<>();

    private PromQl(String s, int from, int end) {
        this.s = s;
        this.i = from;
        this.end = end;
    }

    static Reads reads(String expr) {
        return new Reads(parse(expr, 0, expr.length()));
    }

    /** Grafana's Prometheus variable query {@code label_values(selector, label)}; other forms are refused. */
    static Reads variableQuery(String query) {
        String q = query.strip();
        if (!q.startsWith("label_values(") || !q.endsWith(")")) {
            throw new IllegalArgumentException("only label_values(selector, label) is supported: " + query);
        }
        String inner = q.substring("label_values(".length(), q.length() - 1);
        int comma = inner.lastIndexOf(',');
        if (comma < 0) {
            throw new IllegalArgumentException("label_values without a selector cannot be checked: " + query);
        }
        Set<String> label = Set.of(inner.substring(comma + 1).strip());
        return new Reads(reads(inner.substring(0, comma)).selectors().stream().map(s -> s.groupedBy(label)).toList());
    }

    private static List<Selector> parse(String s, int from, int end) {
        PromQl p = new PromQl(s, from, end);
        p.expression();
        return p.selectors.stream().map(sel -> sel.groupedBy(p.matching)).toList();
    }

    private void expression() {
        while (i < end) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                skipString();
            } else if (c == '[') {
                int close = s.indexOf(']', i);
                if (close < 0 || close >= end) {
                    throw error("unclosed '['");
                }
                i = close + 1;
            } else if (c == '{') {
                throw error("a selector without a metric name");
            } else if (c == '$') {
                i++;
                identifier();
            } else if (Character.isDigit(c) || c == '.') {
                while (i < end && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '.'
                        || s.charAt(i) == '_')) {
                    i++;
                }
            } else if (isIdentifierStart(c)) {
                word();
            } else {
                i++;
            }
        }
    }

    private void word() {
        String word = identifier();
        skipSpaces();
        char next = i < end ? s.charAt(i) : 0;
        if (AGGREGATIONS.contains(word) && (next == '(' || startsWord(GROUPING))) {
            aggregation();
        } else if (MATCHING.contains(word)) {
            if (next == '(') {
                matching.addAll(labelList());
            }
        } else if (KEYWORDS.contains(word) || next == '(') {
            // an operator, or a function whose arguments are read as they come
        } else {
            Set<String> labels = new LinkedHashSet<>();
            if (next == '{') {
                matchers(labels);
            }
            selectors.add(new Selector(word, Set.copyOf(labels)));
        }
    }

    /** {@code agg by (l) (body)} or {@code agg (body) by (l)}: the labels apply to the body's selectors. */
    private void aggregation() {
        Set<String> labels = new LinkedHashSet<>();
        if (startsWord(GROUPING)) {
            identifier();
            skipSpaces();
            labels.addAll(labelList());
            skipSpaces();
        }
        if (i >= end || s.charAt(i) != '(') {
            throw error("expected '(' after an aggregation");
        }
        int close = matchingParenthesis(i);
        List<Selector> body = parse(s, i + 1, close);
        i = close + 1;
        skipSpaces();
        if (labels.isEmpty() && startsWord(GROUPING)) {
            identifier();
            skipSpaces();
            labels.addAll(labelList());
        }
        body.forEach(sel -> selectors.add(sel.groupedBy(labels)));
    }

    private boolean startsWord(Set<String> words) {
        int j = i;
        while (j < end && (Character.isLetterOrDigit(s.charAt(j)) || s.charAt(j) == '_')) {
            j++;
        }
        return words.contains(s.substring(i, j));
    }

    /** (a, b, c) at i; leaves i past the ')'. */
    private Set<String> labelList() {
        if (i >= end || s.charAt(i) != '(') {
            throw error("expected a label list");
        }
        int close = s.indexOf(')', i);
        if (close < 0 || close >= end) {
            throw error("unclosed label list");
        }
        Set<String> labels = new LinkedHashSet<>();
        for (String label : s.substring(i + 1, close).split(",")) {
            if (!label.isBlank()) {
                labels.add(label.strip());
            }
        }
        i = close + 1;
        return labels;
    }

    /** The index of the ')' closing the '(' at {@code open}, strings and brackets skipped. */
    private int matchingParenthesis(int open) {
        int saved = i;
        int depth = 0;
        i = open;
        while (i < end) {
            char c = s.charAt(i);
            if (c == '"' || c == '\'' || c == '`') {
                skipString();
                continue;
            }
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                int close = i;
                i = saved;
                return close;
            }
            i++;
        }
        throw error("unclosed '('");
    }

    /** {label op "value", ...}: collects the label names. */
    private void matchers(Set<String> labels) {
        i++; // '{'
        while (true) {
            skipSpaces();
            if (i >= end) {
                throw error("unclosed '{'");
            }
            char c = s.charAt(i);
            if (c == '}') {
                i++;
                return;
            }
            if (c == ',') {
                i++;
                continue;
            }
            if (!isIdentifierStart(c)) {
                throw error("expected a label name");
            }
            labels.add(identifier());
            skipSpaces();
            while (i < end && "=!~".indexOf(s.charAt(i)) >= 0) {
                i++;
            }
            skipSpaces();
            if (i >= end || "\"'`".indexOf(s.charAt(i)) < 0) {
                throw error("expected a quoted label value");
            }
            skipString();
        }
    }

    private String identifier() {
        int start = i;
        while (i < end && (Character.isLetterOrDigit(s.charAt(i)) || s.charAt(i) == '_' || s.charAt(i) == ':')) {
            i++;
        }
        return s.substring(start, i);
    }

    private void skipString() {
        char quote = s.charAt(i++);
        while (i < end && s.charAt(i) != quote) {
            i += s.charAt(i) == '\\' && quote != '`' ? 2 : 1;
        }
        if (i >= end) {
            throw error("unclosed string");
        }
        i++;
    }

    private void skipSpaces() {
        while (i < end && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
    }

    private static boolean isIdentifierStart(char c) {
        return Character.isLetter(c) || c == '_' || c == ':';
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + i + " in: " + s);
    }
}
