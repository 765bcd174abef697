package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class LocalClusterTest {

    @Test
    void stopEndsChildrenThatIgnoreNothing() throws IOException {
        Process sleeper = new ProcessBuilder("sleep", "300").start();

        LocalCluster.stop(List.of(sleeper), Duration.ofSeconds(10));

        assertThat(sleeper.isAlive()).isFalse();
    }

    @Test
    void zeroGraceKillsAtOnceEvenAChildThatIgnoresSigterm() throws IOException {
        Process stubborn = new ProcessBuilder("bash", "-c", "trap '' TERM; while true; do sleep 0.1; done").start();
        long start = System.nanoTime();

        LocalCluster.stop(List.of(stubborn), Duration.ZERO);

        assertThat(stubborn.isAlive()).isFalse();
        assertThat(System.nanoTime() - start).isLessThan(Duration.ofSeconds(5).toNanos());
    }

    @Test
    void stopKillsAChildThatIgnoresSigterm() throws IOException {
        Process stubborn = new ProcessBuilder("bash", "-c", "trap '' TERM; while true; do sleep 0.1; done").start();

        LocalCluster.stop(List.of(stubborn), Duration.ofMillis(300));

        assertThat(stubborn.isAlive()).isFalse();
    }

    @Test
    void lastLogLineSkipsStackFramesAndBlankLines(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("worker-1.log");
        Files.writeString(log, "starting\nCommException: peer rank 2 at 127.0.0.1:4000 closed the connection\n"
                + "    at io.allsum.Foo.bar(Foo.java:1)\n\n");

        assertThat(LocalCluster.lastLogLine(log))
                .isEqualTo(": CommException: peer rank 2 at 127.0.0.1:4000 closed the connection");
        assertThat(LocalCluster.lastLogLine(dir.resolve("absent.log"))).isEmpty();
    }

    @Test
    void lastLogLinePrefersTheRootCauseOfAStackTrace(@TempDir Path dir) throws IOException {
        Path log = dir.resolve("worker-0.log");
        Files.writeString(log, "BeanCreationException: Error creating bean\n"
                + "Caused by: BeanInstantiationException: Failed to instantiate\n\tat a.b(C.java:1)\n"
                + "Caused by: java.lang.IllegalStateException: no communicator factory for backend nccl\n"
                + "\tat x.y(Z.java:2)\n\t... 29 common frames omitted\n");

        assertThat(LocalCluster.lastLogLine(log))
                .isEqualTo(": java.lang.IllegalStateException: no communicator factory for backend nccl");
    }

    @Test
    void deleteRecursivelyRemovesALogDirectoryWithItsFiles(@TempDir Path dir) throws IOException {
        Path logs = Files.createDirectories(dir.resolve("allsum-1"));
        Files.writeString(logs.resolve("server.log"), "x");
        Files.writeString(Files.createDirectories(logs.resolve("sub")).resolve("worker-0.log"), "y");

        LocalCluster.deleteRecursively(logs);

        assertThat(logs).doesNotExist();
    }

    @Test
    void randomTokensDiffer() {
        assertThat(LocalCluster.randomToken()).hasSizeGreaterThanOrEqualTo(32).isNotEqualTo(LocalCluster.randomToken());
    }

    @Test
    void aCommandsClusterUsesAotCachesUnlessAllsumAotIsOffAndServesNoWorkerPort() {
        Deadline deadline = Deadline.in(Duration.ofSeconds(5));
        LocalCluster.Options options = LocalCluster.Options.forCommand(null, deadline, message -> { });

        assertThat(options.aot()).isTrue();
        assertThat(options.workerHttp()).isFalse();
        assertThat(options.oneWorkerJvm()).isFalse();
        assertThat(options.deadline()).isSameAs(deadline);
        assertThat(LocalCluster.Options.forCommand("OFF", deadline, message -> { }).aot()).isFalse();
        LocalCluster.Options kept = options.withWorkerHttp(true).withOneWorkerJvm(true).withAot(false);
        assertThat(kept).extracting(LocalCluster.Options::aot, LocalCluster.Options::workerHttp,
                LocalCluster.Options::oneWorkerJvm, LocalCluster.Options::deadline)
                .containsExactly(false, true, true, deadline);
    }

    @Test
    void aQuickStopKillsAtOnceAndAGracefulOneWaitsItsGraceBothKeepingTheLogsUnlessAsked() {
        assertThat(LocalCluster.Stop.quick()).isEqualTo(new LocalCluster.Stop(true, Duration.ZERO, false));
        assertThat(LocalCluster.Stop.graceful(Duration.ofSeconds(3)).deletingLogs(true))
                .isEqualTo(new LocalCluster.Stop(false, Duration.ofSeconds(3), true));
        assertThat(LocalCluster.Stop.quick().deletingLogs(false).deleteLogs()).isFalse();
    }
}
