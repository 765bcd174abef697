package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A group with a rank down, on a real rendezvous server: the launcher says which ranks it waits for while it waits,
 * and by default gives up after a short wait instead of the whole --timeout.
 */
class LauncherRemoteWaitIT {

    @TempDir
    Path dir;

    @Test
    void aGroupWithAMissingRankFailsFastNamingTheRank() throws Exception {
        Path repo = Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
        Path jar = repo.resolve("rendezvous-server/target/rendezvous-server.jar");
        assumeTrue(Files.isRegularFile(jar), jar + " is absent: build the reactor first");
        int port = LocalCluster.freePort();
        String token = LocalCluster.randomToken();
        ProcessBuilder pb = new ProcessBuilder(ProcessLayout.currentJava().toString(), "-jar", jar.toString(),
                "--server.port=" + port, "--server.address=127.0.0.1", "--allsum.data-dir=" + dir.resolve("data"))
                .redirectErrorStream(true).redirectOutput(dir.resolve("server.log").toFile());
        pb.environment().put("ALLSUM_TOKEN", token);
        Process server = pb.start();
        try {
            URI uri = URI.create("http://127.0.0.1:" + port);
            new ServerProbe(uri).awaitHealthy(Deadline.in(Duration.ofSeconds(180)), () -> assertThat(server.isAlive())
                    .as("server log:%n%s", dir.resolve("server.log")).isTrue());
            // Rank 0 of 2 waits in its join (re-posting, as a worker does); rank 1 never comes.
            AllsumClient client = Clients.connect(uri, token);
            Thread.startVirtualThread(() -> {
                try {
                    client.join(new JoinRequest("cluster", 0, 2, "it-rank-0", Backend.RING, null, "127.0.0.1:1",
                            null, null), Duration.ofSeconds(90));
                } catch (RuntimeException e) {
                    // The join ends when the test closes the client or its deadline passes.
                }
            });
            LauncherProcess.Started started = LauncherProcess.start(dir, "--server", uri.toString(), "--group",
                    "cluster", "--token", token, "-b", "8", "-e", "8");
            LauncherProcess.Result r = started.await(120);
            double seconds = (System.nanoTime() - started.startNanos()) / 1e9;

            assertThat(r.exitCode()).as("stderr:%n%s", r.stderr()).isEqualTo(ExitCodes.FAILED);
            List<String> lines = r.stderrLines();
            assertThat(lines).anySatisfy(l -> assertThat(l)
                    .containsPattern("waiting for ranks \\[1] of group 'cluster' \\(generation \\d+\\), \\d+ s"));
            assertThat(lines.getLast()).isEqualTo("allsum: group 'cluster' was not complete within "
                    + "--wait-for-ranks 10 s; missing ranks [1]");
            assertThat(seconds).as("the default wait, not the 600 s --timeout").isLessThan(25);
            client.close();
        } finally {
            LocalCluster.stop(List.of(server), Duration.ofSeconds(10));
        }
    }
}
