package io.allsum.deploy.monitoring;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The Prometheus text exposition of one or more scrapes, as a table of sample names to the label names seen on them,
 * and family names to their {@code # TYPE}. A query name is checked the way Prometheus stores it: only sample names
 * exist, so a histogram family {@code x} is queried as {@code x_bucket}, {@code x_count} or {@code x_sum}, and those
 * suffixes must belong to a family of the matching type.
 */
final class PrometheusScrape {

    /** Labels that Prometheus adds to every scraped sample: never in the exposition itself. */
    static final Set<String> TARGET_LABELS = Set.of("instance", "job");

    private final Map<String, Set<String>> labelsBySample = new HashMap<>();
    private final Map<String, String> typeByFamily = new HashMap<>();
    private final Map<String, Set<String>> valuesByLabel = new HashMap<>();

    static PrometheusScrape of(String... expositions) {
        PrometheusScrape scrape = new PrometheusScrape();
        for (String text : expositions) {
            text.lines().forEach(scrape::line);
        }
        return scrape;
    }

    private void line(String line) {
        if (line.startsWith("# TYPE ")) {
            String[] parts = line.substring(7).strip().split("\\s+");
            if (parts.length == 2) {
                typeByFamily.put(parts[0], parts[1]);
            }
            return;
        }
        if (line.isBlank() || line.startsWith("#")) {
            return;
        }
        int brace = line.indexOf('{');
        int space = line.indexOf(' ');
        int end = brace >= 0 && (space < 0 || brace < space) ? brace : space;
        if (end <= 0) {
            throw new IllegalArgumentException("not a sample line: " + line);
        }
        String name = line.substring(0, end);
        Set<String> labels = labelsBySample.computeIfAbsent(name, n -> new TreeSet<>());
        if (end == brace) {
            labels(line, brace + 1, name, labels);
        }
    }

    /** name="value",... with backslash escapes in the values. */
    private void labels(String line, int from, String sample, Set<String> labels) {
        int i = from;
        while (i < line.length() && line.charAt(i) != '}') {
            int eq = line.indexOf('=', i);
            String label = line.substring(i, eq).strip();
            int j = eq + 2; // past ="
            StringBuilder value = new StringBuilder();
            while (line.charAt(j) != '"') {
                if (line.charAt(j) == '\\') {
                    j++;
                }
                value.append(line.charAt(j++));
            }
            labels.add(label);
            valuesByLabel.computeIfAbsent(sample + "/" + label, k -> new TreeSet<>()).add(value.toString());
            i = j + 1;
            if (i < line.length() && line.charAt(i) == ',') {
                i++;
            }
        }
    }

    Set<String> sampleNames() {
        return new TreeSet<>(labelsBySample.keySet());
    }

    /** The values a label takes on a sample name, as Grafana's label_values would list them. */
    Set<String> labelValues(String sample, String label) {
        return valuesByLabel.getOrDefault(sample + "/" + label, Set.of());
    }

    /** Why an expression's reads would find nothing in this scrape; empty when every name and label exists. */
    List<String> problems(PromQl.Reads reads) {
        List<String> problems = new ArrayList<>();
        for (PromQl.Selector selector : reads.selectors()) {
            String name = selector.metric();
            String nameProblem = nameProblem(name);
            if (nameProblem != null) {
                problems.add(nameProblem);
                continue;
            }
            Set<String> seen = labelsBySample.get(name);
            for (String label : selector.labels()) {
                if (!seen.contains(label) && !TARGET_LABELS.contains(label)) {
                    problems.add(name + " has no label '" + label + "' (labels: " + seen + ")");
                }
            }
            for (String label : selector.groupedBy()) {
                if (!seen.contains(label) && !TARGET_LABELS.contains(label)) {
                    problems.add("grouping label '" + label + "' is not on " + name + " (labels: " + seen + ")");
                }
            }
        }
        return problems;
    }

    private String nameProblem(String name) {
        if (!labelsBySample.containsKey(name)) {
            String type = typeByFamily.get(name);
            return "no sample named " + name + (type == null ? "" : " (a " + type + " family: query its samples,"
                    + " e.g. " + name + ("counter".equals(type) ? "_total" : "_count") + ")");
        }
        for (String suffix : List.of("_bucket", "_count", "_sum", "_total")) {
            if (name.endsWith(suffix) && !typeByFamily.containsKey(name)) {
                String family = name.substring(0, name.length() - suffix.length());
                String type = typeByFamily.get(family);
                Set<String> allowed = switch (suffix) {
                    case "_bucket" -> Set.of("histogram");
                    case "_total" -> Set.of("counter");
                    default -> Set.of("histogram", "summary");
                };
                if (type == null || !allowed.contains(type)) {
                    return name + ": its family " + family + " is a " + type + ", not one of " + allowed;
                }
            }
        }
        return null;
    }
}
