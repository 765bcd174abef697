package io.allsum.launcher;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Every JVM flags file the distribution ships (packaging/jvm) starts this JVM: no typo waits for a user to find it. */
class JvmArgsFilesTest {

    static Stream<Path> flagFiles() throws IOException {
        Path dir = Path.of("..", "packaging", "jvm").toAbsolutePath().normalize();
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> all = files.filter(f -> f.toString().endsWith(".jvmargs")).sorted().toList();
            assertThat(all).isNotEmpty();
            return all.stream();
        }
    }

    @ParameterizedTest
    @MethodSource("flagFiles")
    void theJvmStartsWithTheFlagsOf(Path file) throws Exception {
        // server-lowmem.jvmargs goes on top of server.jvmargs, as bin/allsum-server puts them.
        List<String> command = file.getFileName().toString().startsWith("server-")
                ? List.of(java(), "@" + file.resolveSibling("server.jvmargs"), "@" + file, "-version")
                : List.of(java(), "@" + file, "-version");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean exited = process.waitFor(60, TimeUnit.SECONDS);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!exited) {
            process.destroyForcibly();
        }
        assertThat(exited).as("java -version with %s exited", file).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
