package io.allsum.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

import tools.jackson.databind.JsonNode;

/**
 * The images as a cluster on a Docker network: the server and three CPU ring workers, driven through the server's
 * REST API from the host, as a user would. Ryuk is off (its image cannot be pulled here): {@link #stopCluster()}
 * removes everything this class starts.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RingClusterIT {

    private static final String TOKEN = "it-" + UUID.randomUUID();
    private static final String GROUP = "containers";
    private static final int RANKS = 3;

    private static Network network;
    private static GenericContainer<?> server;
    private static final List<GenericContainer<?>> workers = new ArrayList<>();
    private static Api api;

    @BeforeAll
    static void startCluster() throws Exception {
        AllsumImages.ensureBuilt();
        network = Network.newNetwork();
        server = new GenericContainer<>(DockerImageName.parse(AllsumImages.SERVER))
                .withImagePullPolicy(image -> false)
                .withNetwork(network).withNetworkAliases("server")
                .withEnv("ALLSUM_TOKEN", TOKEN)
                .withExposedPorts(8080)
                .waitingFor(PolledHealthcheck.within(Duration.ofMinutes(3)));
        server.start();
        api = new Api("http://" + server.getHost() + ":" + server.getMappedPort(8080), TOKEN);
        for (int rank = 0; rank < RANKS; rank++) {
            String host = "rank" + rank;
            GenericContainer<?> worker = new GenericContainer<>(DockerImageName.parse(AllsumImages.WORKER))
                    .withImagePullPolicy(image -> false)
                    .withNetwork(network).withNetworkAliases(host)
                    .withCreateContainerCmdModifier(cmd -> cmd.withHostName(host))
                    .withEnv("ALLSUM_SERVER", "http://server:8080")
                    .withEnv("ALLSUM_TOKEN", TOKEN)
                    .withEnv("ALLSUM_GROUP", GROUP)
                    .withEnv("ALLSUM_BACKEND", "ring")
                    .withEnv("ALLSUM_RANK", String.valueOf(rank))
                    .withEnv("ALLSUM_WORLD_SIZE", String.valueOf(RANKS))
                    .waitingFor(PolledHealthcheck.within(Duration.ofMinutes(4)));
            workers.add(worker);
        }
        // All at once, each on its own thread: a worker turns healthy only when the whole group has joined, so
        // starting them a few at a time (a parallel stream on 2 cores runs 2) would wait for ever on the others.
        Startables.deepStart(workers).join();
    }

    @AfterAll
    static void stopCluster() throws IOException {
        Path logs = AllsumImages.repo().resolve("container-tests/target/container-logs");
        Files.createDirectories(logs);
        for (int rank = 0; rank < workers.size(); rank++) {
            saveLogs(workers.get(rank), logs.resolve("ring-worker-" + rank + ".log"));
            workers.get(rank).stop();
        }
        if (server != null) {
            saveLogs(server, logs.resolve("ring-server.log"));
            server.stop();
        }
        if (network != null) {
            network.close();
        }
    }

    @Test
    @Order(1)
    void theServerAnswersOnlyHealthWithoutTheToken() throws Exception {
        assertThat(api.status("/actuator/health", false)).isEqualTo(200);
        assertThat(api.status("/rendezvous/" + GROUP, false)).isEqualTo(401);
        assertThat(api.status("/rendezvous/" + GROUP, true)).isEqualTo(200);
    }

    @Test
    @Order(2)
    void aSweepSubmittedOverTheRestApiReturnsEverySizeWithNothingWrong() throws Exception {
        JsonNode job = api.submit(GROUP, """
                {"minBytes": 8, "maxBytes": 1048576, "iterations": 5, "warmupIterations": 1}""");
        JsonNode done = awaitEnded(job.get("jobId").asString(), Duration.ofMinutes(3));

        assertThat(done.get("state").asString()).as(done.toString()).isEqualTo("succeeded");
        JsonNode results = done.get("results");
        assertThat(results).hasSize(18); // 8 B, 16 B, ... 1 MiB
        for (JsonNode size : results) {
            assertThat(size.get("wrongElements").asLong()).as(size.toString()).isZero();
        }
        assertThat(results.get(17).get("bytes").asLong()).isEqualTo(1 << 20);
    }

    @Test
    @Order(3)
    void aWorkerContainerKilledMidJobFailsTheJobNamingItsRankAndTheGroupReformsAfterItRestarts() throws Exception {
        long generation = api.group(GROUP).get("generation").asLong();
        // Long enough to be running when the kill lands: 64 MiB x 400 iterations takes minutes on the ring.
        JsonNode job = api.submit(GROUP, """
                {"minBytes": 67108864, "maxBytes": 67108864, "iterations": 400, "warmupIterations": 0}""");
        String jobId = job.get("jobId").asString();
        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(200))
                .until(() -> api.job(GROUP, jobId).get("state").asString().equals("running"));

        var docker = DockerClientFactory.instance().client();
        String victim = workers.get(2).getContainerId();
        docker.killContainerCmd(victim).exec();
        long killedAt = System.nanoTime();

        JsonNode failed = awaitEnded(jobId, Duration.ofMinutes(2));
        double detectSeconds = (System.nanoTime() - killedAt) / 1e9;
        assertThat(failed.get("state").asString()).isEqualTo("failed");
        assertThat(failed.get("failureReason").asString()).as(failed.toString()).contains("rank 2");

        docker.startContainerCmd(victim).exec();
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
                .until(() -> api.formedAfter(GROUP, generation));
        double reformSeconds = (System.nanoTime() - killedAt) / 1e9;
        System.out.printf("container kill -> job failed: %.1f s; kill -> next generation complete (restart "
                + "included): %.1f s%n", detectSeconds, reformSeconds);

        JsonNode again = awaitEnded(api.submit(GROUP, """
                {"minBytes": 1024, "maxBytes": 65536, "iterations": 3, "warmupIterations": 1}""")
                .get("jobId").asString(), Duration.ofMinutes(2));
        assertThat(again.get("state").asString()).as(again.toString()).isEqualTo("succeeded");
    }

    private static JsonNode awaitEnded(String jobId, Duration deadline) {
        return api.awaitEnded(GROUP, jobId, deadline);
    }

    private static void saveLogs(GenericContainer<?> container, Path file) throws IOException {
        if (container.getContainerId() != null) {
            try {
                Files.writeString(file, container.getLogs());
            } catch (RuntimeException gone) {
                Files.writeString(file, "(no logs: " + gone.getMessage() + ")");
            }
        }
    }
}
