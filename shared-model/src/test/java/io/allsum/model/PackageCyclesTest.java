package io.allsum.model;

import io.allsum.testing.PackageGraph;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** No cycle between this module's packages ({@link PackageGraph}: every import and qualified name). */
class PackageCyclesTest {

    @Test
    void noCycleBetweenThePackages() {
        PackageGraph graph = PackageGraph.of(Path.of("src/main/java"), "io.allsum");
        assertThat(graph.cycles()).as("package uses: %s", graph.uses()).isEmpty();
    }
}
