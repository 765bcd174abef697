package io.allsum.server;

import org.junit.jupiter.api.Test;

import java.io.IOException;
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

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The server's packages, from the {@code import} lines of its main sources: no cycle between them, no import of the
 * client library, and domain packages (rendezvous, jobs, their problem) without web types.
 */
class PackageDependenciesTest {

    private static final Path SOURCES = Path.of("src/main/java");
    private static final String ROOT = "io.allsum.server";
    private static final List<String> DOMAINS = List.of(ROOT + ".rendezvous", ROOT + ".jobs", ROOT + ".problem");
    /** What a domain package never imports: servlets, Jetty, Spring's web and HTTP types, any web package. */
    private static final List<String> WEB_PREFIXES = List.of("jakarta.servlet.", "org.eclipse.jetty.",
            "org.springframework.web.", "org.springframework.http.", ROOT + ".web.", ROOT + ".rendezvous.web.",
            ROOT + ".jobs.web.");
    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+)(?:\\.\\*)?;", Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE);

    /** package -> every name it imports */
    private static Map<String, Set<String>> imports() throws IOException {
        Map<String, Set<String>> imports = new TreeMap<>();
        try (Stream<Path> files = Files.walk(SOURCES)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                String source = Files.readString(file);
                Matcher pkg = PACKAGE.matcher(source);
                assertThat(pkg.find()).as(file.toString()).isTrue();
                Set<String> names = imports.computeIfAbsent(pkg.group(1), p -> new TreeSet<>());
                Matcher imported = IMPORT.matcher(source);
                while (imported.find()) {
                    names.add(imported.group(1));
                }
            }
        }
        return imports;
    }

    /** The server package an imported name belongs to (the longest one that prefixes it), or null. */
    private static String packageOf(String name, Set<String> packages) {
        String best = null;
        for (String p : packages) {
            if (name.startsWith(p + ".") && (best == null || p.length() > best.length())) {
                best = p;
            }
        }
        return best;
    }

    @Test
    void noCycleBetweenTheServersPackages() throws IOException {
        Map<String, Set<String>> imports = imports();
        Map<String, Set<String>> uses = new TreeMap<>();
        imports.forEach((from, names) -> {
            Set<String> targets = uses.computeIfAbsent(from, p -> new TreeSet<>());
            for (String name : names) {
                String to = packageOf(name, imports.keySet());
                if (to != null && !to.equals(from)) {
                    targets.add(to);
                }
            }
        });
        List<String> cycles = new ArrayList<>();
        for (String start : uses.keySet()) {
            findCycle(start, start, uses, new ArrayList<>(List.of(start)), new TreeSet<>(), cycles);
        }
        assertThat(cycles).as("package cycles (package imports: %s)", uses).isEmpty();
    }

    private static void findCycle(String start, String at, Map<String, Set<String>> uses, List<String> path,
                                  Set<String> seen, List<String> cycles) {
        for (String next : uses.getOrDefault(at, Set.of())) {
            if (next.equals(start)) {
                cycles.add(String.join(" -> ", path) + " -> " + start);
            } else if (next.compareTo(start) > 0 && seen.add(next)) { // each cycle once, from its smallest package
                path.add(next);
                findCycle(start, next, uses, path, seen, cycles);
                path.removeLast();
            }
        }
    }

    @Test
    void theServerDoesNotImportTheClientLibrary() throws IOException {
        imports().forEach((pkg, names) -> assertThat(names).as(pkg)
                .noneMatch(name -> name.startsWith("io.allsum.client.")));
    }

    @Test
    void theDomainPackagesHaveNoWebTypes() throws IOException {
        Map<String, Set<String>> imports = imports();
        for (String domain : DOMAINS) {
            assertThat(imports.get(domain)).as(domain).isNotEmpty()
                    .noneMatch(name -> WEB_PREFIXES.stream().anyMatch(name::startsWith));
        }
    }
}
