package io.allsum.testing;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class PackageGraphTest {

    @TempDir
    Path sources;

    @Test
    void findsACycleThroughAnImportOneWayAndAQualifiedNameTheOther() throws IOException {
        write("a/jobs/Job.java", "package a.jobs;\nimport a.validate.Rules;\nclass Job { }\n");
        write("a/validate/Rules.java", "package a.validate;\nclass Rules { a.jobs.Job job; }\n");

        assertThat(PackageGraph.of(sources, "a").cycles()).containsExactly("a.jobs -> a.validate -> a.jobs");
    }

    @Test
    void aOneWayUseIsNoCycle() throws IOException {
        write("a/jobs/Job.java", "package a.jobs;\nimport a.validate.Rules;\nclass Job { }\n");
        write("a/validate/Rules.java", "package a.validate;\nimport java.util.List;\nclass Rules { }\n");

        PackageGraph graph = PackageGraph.of(sources, "a");
        assertThat(graph.uses().get("a.jobs")).containsExactly("a.validate");
        assertThat(graph.cycles()).isEmpty();
    }

    private void write(String file, String source) throws IOException {
        Path path = sources.resolve(file);
        Files.createDirectories(path.getParent());
        Files.writeString(path, source);
    }
}
