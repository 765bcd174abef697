package io.allsum.containers;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Testcontainers;

/**
 * docker/compose.yaml exactly as the README runs it: {@code --profile cpu up -d} brings the server and two ring workers
 * up healthy, and {@code run --rm allsum} prints an nccl-tests table with nothing wrong. A unique project name and a
 * free host port keep it apart from anything else on the machine.
 */
@Testcontainers(disabledWithoutDocker = true)
class ComposeClusterIT {

    private static ComposeCli compose;

    @BeforeAll
    static void buildImages() throws Exception {
        AllsumImages.ensureBuilt();
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        compose = ComposeCli.find(AllsumImages.repo().resolve("docker/compose.yaml"),
                "allsum-it-" + UUID.randomUUID().toString().substring(0, 8),
                Map.of("ALLSUM_TOKEN", "it-" + UUID.randomUUID(), "ALLSUM_PORT", String.valueOf(port)));
    }

    @AfterAll
    static void down() throws Exception {
        if (compose != null) {
            ComposeCli.Result logs = compose.run(Duration.ofMinutes(1), "--profile", "cpu", "logs", "--no-color");
            Path dir = AllsumImages.repo().resolve("container-tests/target/container-logs");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("compose.log"), logs.output());
            compose.run(Duration.ofMinutes(2), "--profile", "cpu", "down", "-v", "--remove-orphans", "-t", "5");
        }
    }

    @Test
    void theCpuProfileComesUpHealthyAndASweepAgainstItPrintsATableWithNothingWrong() throws Exception {
        long start = System.nanoTime();
        ComposeCli.Result up = compose.run(Duration.ofMinutes(5), "--profile", "cpu", "up", "-d");
        assertThat(up.exitCode()).as(up.output()).isZero();
        awaitHealthy(Duration.ofMinutes(5));
        System.out.printf("compose --profile cpu up -d -> server and 2 workers healthy: %.1f s%n",
                (System.nanoTime() - start) / 1e9);

        ComposeCli.Result sweep = compose.run(Duration.ofMinutes(5), "run", "--rm", "allsum",
                "-b", "8", "-e", "64K", "-n", "5", "-w", "1");
        System.out.println(sweep.output());

        assertThat(sweep.exitCode()).as(sweep.output()).isZero();
        assertThat(sweep.output()).contains("ranks: 2").contains("65536").contains("# Out of bounds values : 0 OK");
    }

    private static void awaitHealthy(Duration deadline) throws IOException, InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        String last = "";
        while (System.nanoTime() < end) {
            ComposeCli.Result ps = compose.run(Duration.ofMinutes(1), "--profile", "cpu", "ps");
            last = ps.output();
            if (last.split("\\(healthy\\)", -1).length - 1 == 3) {
                return;
            }
            if (last.contains("Exit") || last.contains("exited")) {
                throw new AssertionError("a container exited:\n" + last);
            }
            Thread.sleep(1000);
        }
        throw new AssertionError("not all healthy within " + deadline + ":\n" + last);
    }
}
