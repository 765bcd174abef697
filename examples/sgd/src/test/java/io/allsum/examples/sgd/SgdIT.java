package io.allsum.examples.sgd;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The example as a user runs it: the packaged rendezvous server and 4 JVMs of {@link Main} on the CPU ring, joined
 * through the ALLSUM_* variables alone. Every rank must end with the same weights (bit for bit: the same averaged
 * gradient each step), near the model the data came from, at a loss of about the noise's variance.
 */
class SgdIT {

    private static final Path SERVER_JAR = Path.of("..", "..", "rendezvous-server", "target", "rendezvous-server.jar");
    private static final Pattern PORT = Pattern.compile("Jetty started on port (\\d+)");
    private static final Pattern FINAL = Pattern.compile(
            "rank (\\d) of 4 \\(ring\\) final loss (\\S+) weights \\[(.*)]");
    private static final int RANKS = 4;
    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void fourProcessesEndWithIdenticalWeightsAndTheNoiseFloorLoss() throws Exception {
        assertThat(SERVER_JAR).as("the server jar (the reactor builds rendezvous-server first)").isRegularFile();
        Path logs = Files.createDirectories(Path.of("target", "it-logs", "sgd"));
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(java, "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar",
                SERVER_JAR.toString(), "--server.port=0", "--server.address=127.0.0.1",
                "--allsum.security.token=", "--allsum.data-dir=" + logs.resolve("data").toAbsolutePath())
                .redirectErrorStream(true).redirectOutput(logs.resolve("server.log").toFile()).start();
        List<Process> ranks = new ArrayList<>();
        try {
            int port = awaitPort(logs.resolve("server.log"), server);
            String classpath = "target/classes:" + Files.readString(Path.of("target", "classpath.txt")).strip();
            for (int r = 0; r < RANKS; r++) {
                ProcessBuilder rank = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath, Main.class.getName(), "200")
                        .redirectErrorStream(true).redirectOutput(logs.resolve("rank" + r + ".log").toFile());
                rank.environment().put("ALLSUM_SERVER", "http://127.0.0.1:" + port);
                rank.environment().put("ALLSUM_GROUP", "sgd-it");
                rank.environment().put("ALLSUM_RANK", String.valueOf(r));
                rank.environment().put("ALLSUM_WORLD_SIZE", String.valueOf(RANKS));
                rank.environment().put("ALLSUM_BACKEND", "ring");
                ranks.add(rank.start());
            }
            List<double[]> weights = new ArrayList<>();
            List<Double> losses = new ArrayList<>();
            for (int r = 0; r < RANKS; r++) {
                Process p = ranks.get(r);
                assertThat(p.waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as("rank " + r + " finished").isTrue();
                String out = Files.readString(logs.resolve("rank" + r + ".log"));
                assertThat(p.exitValue()).as("rank " + r + " exit code; its output:\n" + out).isZero();
                Matcher m = FINAL.matcher(out);
                assertThat(m.find()).as("rank " + r + " prints its final line; its output:\n" + out).isTrue();
                assertThat(Integer.parseInt(m.group(1))).isEqualTo(r);
                losses.add(Double.parseDouble(m.group(2)));
                weights.add(Arrays.stream(m.group(3).split(", ")).mapToDouble(Double::parseDouble).toArray());
            }
            for (int r = 1; r < RANKS; r++) {
                assertThat(weights.get(r)).as("rank " + r + "'s weights against rank 0's").containsExactly(weights.get(0));
                assertThat(losses.get(r)).isEqualTo(losses.get(0));
            }
            double[] w = weights.get(0);
            for (int i = 0; i < Main.TRUE_WEIGHTS.length; i++) {
                assertThat(w[i]).as("weight " + i).isCloseTo(Main.TRUE_WEIGHTS[i], within(0.005));
            }
            assertThat(w[Main.TRUE_WEIGHTS.length]).as("bias").isCloseTo(Main.TRUE_BIAS, within(0.005));
            // Fitted to noise of standard deviation 0.01: the mean squared error is about its variance, 1e-4.
            assertThat(losses.get(0)).isBetween(0.5e-4, 1.5e-4);
        } finally {
            ranks.forEach(Process::destroyForcibly);
            server.destroy();
            if (!server.waitFor(10, TimeUnit.SECONDS)) {
                server.destroyForcibly();
            }
        }
    }

    private static int awaitPort(Path log, Process server) throws IOException, InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = PORT.matcher(Files.exists(log) ? Files.readString(log) : "");
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            assertThat(server.isAlive()).as("the server is running; its log:\n" + Files.readString(log)).isTrue();
            Thread.sleep(200);
        }
        throw new AssertionError("the server reported no port within " + DEADLINE + "; see " + log);
    }
}
