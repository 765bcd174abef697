package io.allsum.server;

import io.allsum.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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

    @Test
    void noCycleBetweenTheServersPackages() {
        PackageGraph graph = PackageGraph.of(SOURCES, ROOT);
        assertThat(graph.cycles()).as("package uses: %s", graph.uses()).isEmpty();
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
