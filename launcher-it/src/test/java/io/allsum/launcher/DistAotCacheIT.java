package io.allsum.launcher;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The distribution's start scripts (packaging/dist/bin/allsum-common.sh, as shipped) with a JDK AOT cache: a training
 * run records lib/APP.aot, later runs use it, and a stale, corrupt or missing cache is ignored: the program still
 * runs, and prints nothing but its own output.
 */
class DistAotCacheIT {

    @TempDir
    Path home;

    private Path jar;

    @BeforeEach
    void aDistributionWithOneProgram() throws IOException {
        Path repo = ProcessLayout.findRepoRoot();
        Path bin = Files.createDirectories(home.resolve("bin"));
        Files.copy(repo.resolve("packaging/dist/bin/allsum-common.sh"), bin.resolve("allsum-common.sh"));
        Files.writeString(bin.resolve("hello"), """
                #!/usr/bin/env bash
                set -euo pipefail
                source "$(dirname "$(readlink -f "$0")")/allsum-common.sh"
                allsum_run hello "$@"
                """);
        bin.resolve("hello").toFile().setExecutable(true);
        Files.createSymbolicLink(home.resolve("runtime"), Path.of(System.getProperty("java.home")));
        Path lib = Files.createDirectories(home.resolve("lib"));
        Path src = Files.writeString(Files.createDirectories(home.resolve("src")).resolve("Hello.java"),
                "public class Hello { public static void main(String[] a) { System.out.println(\"hello \" + "
                        + "java.util.List.of(a).size()); } }");
        assertThat(ToolProvider.getSystemJavaCompiler().run(null, null, null, "-d", home.resolve("src").toString(),
                src.toString())).isZero();
        jar = lib.resolve("hello.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            out.putNextEntry(new JarEntry("Hello.class"));
            out.write(Files.readAllBytes(home.resolve("src/Hello.class")));
            out.closeEntry();
        }
        Files.writeString(lib.resolve("hello.classpath"), "hello.jar\n");
        Files.writeString(lib.resolve("hello.main"), "Hello\n");
    }

    @Test
    void aTrainedCacheIsUsedAndAStaleOrBrokenOneIsIgnoredSilently() throws Exception {
        Path recordings = Files.createDirectories(home.resolve("rec"));
        assertThat(run(Map.of("ALLSUM_AOT_RECORD", recordings.toString()))).startsWith("0 hello 0");
        Path recorded;
        try (Stream<Path> files = Files.list(recordings)) {
            recorded = files.filter(f -> f.toString().endsWith(".aot")).findFirst().orElseThrow();
        }
        Path cache = Files.move(recorded, home.resolve("lib/hello.aot"));

        // AOTMode=on refuses to start without a usable cache: this run proves the scripts' cache is the one used.
        assertThat(run(Map.of("ALLSUM_JAVA_OPTS", "-XX:AOTMode=on"))).isEqualTo("0 hello 0\n");
        assertThat(run(Map.of())).isEqualTo("0 hello 0\n");

        Files.setLastModifiedTime(jar, FileTime.fromMillis(Files.getLastModifiedTime(jar).toMillis() + 60_000));
        assertThat(run(Map.of())).as("a jar newer than the cache").isEqualTo("0 hello 0\n");

        Files.writeString(cache, "not a cache");
        assertThat(run(Map.of())).as("a corrupt cache").isEqualTo("0 hello 0\n");
        Files.delete(cache);
        assertThat(run(Map.of())).as("no cache").isEqualTo("0 hello 0\n");
        assertThat(run(Map.of("ALLSUM_AOT", "off"))).isEqualTo("0 hello 0\n");
    }

    /** Exit code, a space, then stdout and stderr together. */
    private String run(Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(List.of(home.resolve("bin/hello").toString())).redirectErrorStream(true);
        pb.environment().remove("ALLSUM_JAVA_OPTS");
        pb.environment().remove("ALLSUM_AOT");
        pb.environment().putAll(env);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return p.exitValue() + " " + new String(out, StandardCharsets.UTF_8);
    }
}
