package io.allsum.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which of a module's packages use which others, from its main sources: every import and fully qualified name of a
 * class under {@code root}. A package test of each module asserts {@link #cycles()} is empty.
 */
public record PackageGraph(Map<String, Set<String>> uses) {

    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    /** The packages under {@code root} in {@code sources} (usually src/main/java) and what each uses. */
    public static PackageGraph of(Path sources, String root) {
        Pattern reference = Pattern.compile("\\b(" + Pattern.quote(root) + "(?:\\.[a-z]\\w*)*)\\.[A-Z]");
        Map<String, Set<String>> uses = new TreeMap<>();
        try (Stream<Path> files = Files.walk(sources)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(source);
                if (!pkg.find()) {
                    throw new IllegalStateException(file + " has no package line");
                }
                Set<String> targets = uses.computeIfAbsent(pkg.group(1), p -> new TreeSet<>());
                Matcher used = reference.matcher(source.substring(pkg.end()));
                while (used.find()) {
                    if (!used.group(1).equals(pkg.group(1))) {
                        targets.add(used.group(1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (uses.isEmpty()) {
            throw new IllegalStateException("no sources under " + sources.toAbsolutePath());
        }
        return new PackageGraph(uses);
    }

    /** Every cycle once, from its alphabetically first package: "a -> b -> a". */
    public List<String> cycles() {
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            walk(start, start, new ArrayList<>(List.of(start)), new TreeSet<>(), cycles);
        }
        return cycles;
    }

    private void walk(String start, String at, List<String> path, Set<String> seen, List<String> cycles) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                cycles.add(String.join(" -> ", path) + " -> " + start);
            } else if (next.compareTo(start) > 0 && seen.add(next)) {
                path.add(next);
                walk(start, next, path, seen, cycles);
                path.removeLast();
            }
        }
    }
}
