package io.allsum.comm;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's main sources import only the JDK, shared-model, JavaCPP and (the NCCL self check's command line
 * alone) picocli: a program that adds allsum-comm gets no Spring, no logging framework, nothing of the worker.
 */
class LibraryDependenciesTest {

    private static final Pattern IMPORT = Pattern.compile("^import (?:static )?([\\w.]+)", Pattern.MULTILINE);
    private static final List<String> ALLOWED = List.of("java.", "javax.crypto.", "io.allsum.comm.", "io.allsum.model.",
            "io.allsum.client.", "io.allsum.Allsum", "io.allsum.Communicator", "org.bytedeco.");
    private static final List<String> PICOCLI_USERS = List.of("NcclSelfCheck.java", "GpuRanks.java");

    @Test
    void mainSourcesImportNeitherSpringNorTheWorker() throws IOException {
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path file : files.filter(f -> f.toString().endsWith(".java")).toList()) {
                Matcher m = IMPORT.matcher(Files.readString(file));
                while (m.find()) {
                    String name = m.group(1);
                    boolean picocli = name.startsWith("picocli.")
                            && PICOCLI_USERS.contains(file.getFileName().toString());
                    assertThat(picocli || ALLOWED.stream().anyMatch(name::startsWith))
                            .as(file + " imports " + name).isTrue();
                }
            }
        }
    }
}
