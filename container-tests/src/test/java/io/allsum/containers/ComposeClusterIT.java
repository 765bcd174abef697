package io.allsum.containers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.junit.jupiter.Testcontainers;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.HostConfig;

import tools.jackson.databind.JsonNode;

/**
 * docker/compose.yaml exactly as the README runs it: {@code --profile cpu up -d} brings the server and two ring workers
 * up healthy, and {@code run --rm allsum} prints an nccl-tests table with nothing wrong; a crashed worker container is
 * restarted by the engine, one stopped with {@code kill} comes back with {@code up -d}, and either way the group
 * re-forms and runs a job. A unique project name and a free host port keep it apart from anything else on the machine.
 */
@Testcontainers(disabledWithoutDocker = true)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ComposeClusterIT {

    private static final String GROUP = "cluster";
    private static final List<String> SERVICES = List.of("server", "cpu-rank0", "cpu-rank1");
    private static ComposeCli compose;
    private static String project;
    private static Api api;

    @BeforeAll
    static void buildImages() throws Exception {
        AllsumImages.ensureBuilt();
        int port;
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        project = "allsum-it-" + UUID.randomUUID().toString().substring(0, 8);
        String token = "it-" + UUID.randomUUID();
        compose = ComposeCli.find(AllsumImages.repo().resolve("docker/compose.yaml"), project,
                Map.of("ALLSUM_TOKEN", token, "ALLSUM_PORT", String.valueOf(port)));
        api = new Api("http://" + DockerClientFactory.instance().dockerHostIpAddress() + ":" + port, token);
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
    @Order(1)
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

    @Test
    @Order(2)
    void theServerAndTheWorkersRestartUnlessStopped() {
        for (String service : SERVICES) {
            assertThat(inspect(service).getHostConfig().getRestartPolicy().getName()).as(service)
                    .isEqualTo("unless-stopped");
        }
    }

    @Test
    @Order(3)
    void aWorkerContainerWhoseProcessIsKilledComesBackByItselfAndTheGroupReformsAndRunsAJob() throws Exception {
        long generation = api.group(GROUP).get("generation").asLong();
        InspectContainerResponse before = inspect("cpu-rank1");
        crash(before.getState().getPidLong());

        await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(250))
                .until(() -> inspect("cpu-rank1").getRestartCount() > before.getRestartCount());
        awaitReformedAndRunningJobs(generation, "crash (SIGKILL of the worker's JVM)");
    }

    @Test
    @Order(4)
    void aWorkerContainerStoppedWithKillStaysDownUntilUpStartsItAndTheGroupReforms() throws Exception {
        long generation = api.group(GROUP).get("generation").asLong();
        ComposeCli.Result kill = compose.run(Duration.ofMinutes(1), "--profile", "cpu", "kill", "cpu-rank1");
        assertThat(kill.exitCode()).as(kill.output()).isZero();
        // A stop the engine was told to make: no restart policy undoes it.
        Thread.sleep(5_000);
        assertThat(inspect("cpu-rank1").getState().getRunning()).isFalse();

        ComposeCli.Result up = compose.run(Duration.ofMinutes(2), "--profile", "cpu", "up", "-d");
        assertThat(up.exitCode()).as(up.output()).isZero();
        awaitReformedAndRunningJobs(generation, "compose kill, then up -d");
    }

    private static void awaitReformedAndRunningJobs(long generation, String what) throws Exception {
        long start = System.nanoTime();
        await().atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(250))
                .until(() -> api.formedAfter(GROUP, generation));
        System.out.printf("%s -> next generation complete: %.1f s%n", what, (System.nanoTime() - start) / 1e9);
        awaitHealthy(Duration.ofMinutes(2));
        JsonNode job = api.awaitEnded(GROUP, api.submit(GROUP, """
                {"minBytes": 1024, "maxBytes": 65536, "iterations": 3, "warmupIterations": 1}""")
                .get("jobId").asString(), Duration.ofMinutes(2));
        assertThat(job.get("state").asString()).as(job.toString()).isEqualTo("succeeded");
    }

    /** The compose service's one container, found by the labels both compose CLIs set. */
    private static InspectContainerResponse inspect(String service) {
        DockerClient docker = DockerClientFactory.instance().client();
        var containers = docker.listContainersCmd().withShowAll(true)
                .withLabelFilter(Map.of("com.docker.compose.project", project, "com.docker.compose.service", service))
                .exec();
        assertThat(containers).as(service).hasSize(1);
        return docker.inspectContainerCmd(containers.getFirst().getId()).exec();
    }

    /**
     * SIGKILL to a container's main process from outside the engine, as the kernel's OOM killer or a crash ends it:
     * from a one-shot container in the host's PID namespace, so that it works with a remote engine too.
     */
    private static void crash(long pid) {
        DockerClient docker = DockerClientFactory.instance().client();
        String killer = docker.createContainerCmd(AllsumImages.WORKER).withEntrypoint("bash", "-c", "kill -9 " + pid)
                .withHostConfig(HostConfig.newHostConfig().withPidMode("host")).exec().getId();
        try {
            docker.startContainerCmd(killer).exec();
            int exit = docker.waitContainerCmd(killer).start().awaitStatusCode(30, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(exit).as("kill -9 " + pid).isZero();
        } finally {
            docker.removeContainerCmd(killer).withForce(true).exec();
        }
    }

    /**
     * The three services healthy, read from the engine (a {@code compose ps} per poll is a Python start, about a second
     * of a CPU on a 2-core machine that the containers starting need).
     */
    private static void awaitHealthy(Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        Map<String, String> states = Map.of();
        while (System.nanoTime() < end) {
            states = new java.util.TreeMap<>();
            for (String service : SERVICES) {
                var state = inspect(service).getState();
                String status = state.getHealth() == null ? state.getStatus() : state.getHealth().getStatus();
                if (!Boolean.TRUE.equals(state.getRunning()) && !Boolean.TRUE.equals(state.getRestarting())) {
                    throw new AssertionError(service + " exited (" + state.getStatus() + ", code "
                            + state.getExitCodeLong() + ")");
                }
                states.put(service, status);
            }
            if (states.values().stream().allMatch("healthy"::equals)) {
                return;
            }
            Thread.sleep(500);
        }
        throw new AssertionError("not all healthy within " + deadline + ": " + states);
    }
}
