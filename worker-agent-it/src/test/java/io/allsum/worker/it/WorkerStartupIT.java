package io.allsum.worker.it;

import org.junit.jupiter.api.Test;

import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A worker process that cannot work ends on its own with a clear line and a non-zero exit code, never hangs. */
class WorkerStartupIT {

    static final Path LOGS = Path.of("target", "it-logs", "worker-startup");
    static final Duration DEADLINE = Duration.ofSeconds(90);

    private static JvmProcess worker(String name, String... args) throws Exception {
        List<String> main = new java.util.ArrayList<>(AotLaunch.WORKER.command());
        main.add("--server.address=127.0.0.1");
        main.addAll(List.of(args));
        return JvmProcess.start(name, LOGS, List.of(), main);
    }

    @Test
    void workerWithoutRankOrWorldSizeExitsNamingTheVariablesToSet() throws Exception {
        try (JvmProcess w = worker("no-rank", "--allsum.worker.group=g")) {
            assertThat(w.awaitExit(DEADLINE)).isNotZero();
            assertThat(w.output()).contains("set rank (ALLSUM_RANK, RANK or MLX_RANK) and world size "
                    + "(ALLSUM_WORLD_SIZE, WORLD_SIZE or MLX_WORLD_SIZE)");
        }
    }

    @Test
    void workerThatNeverReachesTheServerGivesUpAfterItsRestarts() throws Exception {
        int deadPort;
        try (ServerSocket s = new ServerSocket(0)) {
            deadPort = s.getLocalPort();
        }
        try (JvmProcess w = worker("no-server", "--allsum.worker.server=http://127.0.0.1:" + deadPort,
                "--allsum.worker.group=g", "--allsum.worker.rank=0", "--allsum.worker.world-size=2",
                "--allsum.worker.backend=ring", "--allsum.worker.ring-bind-host=127.0.0.1",
                "--allsum.worker.join-deadline=1s", "--allsum.worker.max-restarts=1")) {
            assertThat(w.awaitExit(DEADLINE)).isEqualTo(3);
            assertThat(w.output()).contains("gives up after 1 restarts").contains("127.0.0.1:" + deadPort);
        }
    }

    @Test
    void workerWhoseJoinIsRefusedExitsWithCodeTwo() throws Exception {
        com.sun.net.httpserver.HttpServer refusing = com.sun.net.httpserver.HttpServer.create(
                new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        refusing.createContext("/", exchange -> {
            byte[] body = ("{\"type\":\"about:blank\",\"title\":\"Unauthorized\",\"status\":401,"
                    + "\"detail\":\"the bearer token in the Authorization header is wrong\",\"code\":\"unauthorized\"}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/problem+json");
            exchange.sendResponseHeaders(401, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        refusing.start();
        try (JvmProcess w = worker("refused", "--allsum.worker.server=http://127.0.0.1:"
                        + refusing.getAddress().getPort(), "--allsum.worker.group=g", "--allsum.worker.rank=0",
                "--allsum.worker.world-size=2", "--allsum.worker.backend=ring",
                "--allsum.worker.ring-bind-host=127.0.0.1")) {
            assertThat(w.awaitExit(DEADLINE)).isEqualTo(2);
            assertThat(w.output()).contains("rejected the join of rank 0").contains("exit code 2");
        } finally {
            refusing.stop(0);
        }
    }
}
