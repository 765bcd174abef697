package io.allsum.launcher;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

class ProcessLayoutTest {

    @TempDir
    Path repo;

    @Test
    void localServerAndPlainWorkersStartFromSpringAotWhenTheJarsHoldIt() throws IOException {
        writeRepo(true);

        ProcessLayout layout = ProcessLayout.resolve(null, repo, Path.of("java"), true);

        assertThat(layout.server().jvm()).anyMatch(f -> f.endsWith("spring-aot.jvmargs"))
                .anyMatch(f -> f.endsWith("local-server.jvmargs"));
        assertThat(layout.plainWorker().jvm()).anyMatch(f -> f.endsWith("spring-aot.jvmargs"))
                .anyMatch(f -> f.endsWith("local-worker.jvmargs"));
        // A worker with its HTTP port is not what the AOT code was processed for.
        assertThat(layout.worker().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"))
                .noneMatch(f -> f.endsWith("local-worker.jvmargs"));
    }

    @Test
    void springAotIsOnUnlessTheVariableSaysOff() throws IOException {
        assertThat(ProcessLayout.springAot(null)).isTrue();
        assertThat(ProcessLayout.springAot("")).isTrue();
        assertThat(ProcessLayout.springAot("on")).isTrue();
        assertThat(ProcessLayout.springAot("off")).isFalse();
        assertThat(ProcessLayout.springAot("OFF")).isFalse();
        writeRepo(true);
        ProcessLayout off = ProcessLayout.resolve(null, repo, Path.of("java"), ProcessLayout.springAot("off"));
        assertThat(off.server().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"));
        assertThat(off.plainWorker().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"));
    }

    @Test
    void jarsBuiltWithoutSpringAotStartTheOrdinaryWay() throws IOException {
        writeRepo(false);

        ProcessLayout layout = ProcessLayout.resolve(null, repo, Path.of("java"), true);

        assertThat(layout.server().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"));
        assertThat(layout.plainWorker().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"))
                .anyMatch(f -> f.endsWith("local-worker.jvmargs"));
    }

    @Test
    void springAotOffLeavesTheFlagOut() throws IOException {
        writeRepo(true);

        ProcessLayout layout = ProcessLayout.resolve(null, repo, Path.of("java"), false);

        assertThat(layout.server().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"));
        assertThat(layout.plainWorker().jvm()).noneMatch(f -> f.endsWith("spring-aot.jvmargs"));
    }

    @Test
    void aDistributionGetsTheLocalFlagFilesByName(@TempDir Path home) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        for (String script : new String[]{"allsum-server", "allsum-worker"}) {
            Files.writeString(bin.resolve(script), "#!/bin/sh\n");
            bin.resolve(script).toFile().setExecutable(true);
        }
        Path lib = Files.createDirectories(home.resolve("lib"));
        Files.writeString(lib.resolve("server.main"), "a.Server\n");
        Files.writeString(lib.resolve("worker.main"), "a.Worker\n");
        thinJar(lib.resolve("allsum-server.jar"), "a/Server__ApplicationContextInitializer.class");
        thinJar(lib.resolve("allsum-worker.jar"), "a/Worker.class");

        ProcessLayout layout = ProcessLayout.resolve(home.toString(), null, Path.of("java"), true);

        assertThat(layout.server().env()).containsEntry("ALLSUM_JVM_CONF", "local-server spring-aot");
        assertThat(layout.plainWorker().env()).containsEntry("ALLSUM_JVM_CONF", "local-worker");
        assertThat(layout.worker().env()).isEmpty();
    }

    @Test
    void repositoryNcclWorkersReadTheNcclFlagsRightAfterTheWorkerFlags() throws IOException {
        writeRepo(true);
        Files.writeString(repo.resolve(ProcessLayout.REPO_JVM_ARGS).resolve("worker-nccl.jvmargs"), "# test\n");
        Path flags = repo.resolve(ProcessLayout.REPO_JVM_ARGS);

        ProcessLayout layout = ProcessLayout.resolve(null, repo, Path.of("java"), true);

        assertThat(layout.worker(Backend.NCCL, true).jvm()).containsExactly("java",
                "@" + flags.resolve("worker.jvmargs"), "@" + flags.resolve("worker-nccl.jvmargs"));
        assertThat(layout.worker(Backend.NCCL, false).jvm()).containsExactly("java",
                "@" + flags.resolve("worker.jvmargs"), "@" + flags.resolve("worker-nccl.jvmargs"),
                "@" + flags.resolve("local-worker.jvmargs"), "@" + flags.resolve("spring-aot.jvmargs"));
        assertThat(layout.worker(Backend.RING, true).jvm()).noneMatch(f -> f.endsWith("worker-nccl.jvmargs"));
        assertThat(layout.worker(Backend.NCCL, true).main()).isEqualTo(layout.worker(Backend.RING, true).main());
    }

    @Test
    void anOldCheckoutWithoutTheNcclFileStillStartsNcclWorkers() throws IOException {
        writeRepo(false);

        ProcessLayout layout = ProcessLayout.resolve(null, repo, Path.of("java"), true);

        assertThat(layout.worker(Backend.NCCL, true)).isEqualTo(layout.worker(Backend.RING, true));
    }

    @Test
    void theDistributionsWorkerScriptPicksItsOwnNcclFlags(@TempDir Path home) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        for (String script : new String[]{"allsum-server", "allsum-worker"}) {
            Files.writeString(bin.resolve(script), "#!/bin/sh\n");
            Files.setPosixFilePermissions(bin.resolve(script), PosixFilePermissions.fromString("rwxr-xr-x"));
        }

        ProcessLayout layout = ProcessLayout.resolve(home.toString(), null, Path.of("java"), false);

        assertThat(layout.worker(Backend.NCCL, true)).isEqualTo(layout.worker(Backend.RING, true));
        assertThat(layout.worker(Backend.NCCL, true).jvm()).containsExactly(bin.resolve("allsum-worker").toString());
    }

    private void writeRepo(boolean withSpringAot) throws IOException {
        Path flags = Files.createDirectories(repo.resolve(ProcessLayout.REPO_JVM_ARGS));
        for (String name : new String[]{"server", "worker", "local-server", "local-worker", "spring-aot"}) {
            Files.writeString(flags.resolve(name + ".jvmargs"), "# test\n");
        }
        bootJar(repo.resolve("rendezvous-server/target/rendezvous-server.jar"), "a.Server", withSpringAot);
        bootJar(repo.resolve("worker-agent/target/worker-agent.jar"), "a.Worker", withSpringAot);
    }

    private static void bootJar(Path jar, String startClass, boolean withSpringAot) throws IOException {
        Files.createDirectories(jar.getParent());
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Start-Class", startClass);
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            String path = "BOOT-INF/classes/" + startClass.replace('.', '/');
            entry(out, path + ".class");
            if (withSpringAot) {
                entry(out, path + "__ApplicationContextInitializer.class");
            }
        }
    }

    private static void thinJar(Path jar, String entry) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            entry(out, entry);
        }
    }

    private static void entry(JarOutputStream out, String name) throws IOException {
        out.putNextEntry(new JarEntry(name));
        OutputStream o = out;
        o.write(new byte[]{0});
        out.closeEntry();
    }
}
