package io.allsum.worker.it;

import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import io.allsum.model.rendezvous.MemberStatus;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Ranks on different hosts: the rendezvous server and three ring workers, each in its own network namespace with
 * its own address (see {@link NetnsHosts}), running the real server jar and real worker JVMs. The workers are told
 * nothing about addresses: each advertises the one on its route to the server. Then partitions: a host unplugged
 * while idle and in the middle of a job, and a slow (delayed) link. Timing figures go to
 * {@code target/it-logs/netns/figures.txt} (docs/reliability.md, "Partitions").
 * Skipped, with the reason, where network namespaces cannot be made (not root, no iproute2).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NetworkNamespacesIT {

    static final String GROUP = "hosts-3";
    static final int WORLD_SIZE = 3;
    static final int SERVER_HOST = 0;
    static final int SERVER_PORT = 8080;
    static final int WORKER_PORT = 8081;
    static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(3);
    static final Duration COLLECTIVE_DEADLINE = Duration.ofSeconds(15);
    static final Duration DIAL_DEADLINE = Duration.ofSeconds(5);
    static final Duration DEADLINE = Duration.ofSeconds(120);
    static final Path LOGS = Path.of("target", "it-logs", "netns");

    static NetnsHosts net;
    static final List<HostProcess> processes = new ArrayList<>();
    static final Map<Integer, HostProcess> workers = new LinkedHashMap<>();
    static AllsumClient client;

    /** A JVM inside a host's namespace; its output in {@code LOGS/name.log}. */
    record HostProcess(String name, Process process, Path log) {
        String output() {
            try {
                return Files.exists(log) ? Files.readString(log) : "";
            } catch (IOException e) {
                return "(unreadable: " + e + ")";
            }
        }

        String tail() {
            String out = output();
            return out.length() <= 3000 ? out : "..." + out.substring(out.length() - 3000);
        }

        void stop() throws InterruptedException {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor(10, TimeUnit.SECONDS);
                }
            }
        }
    }

    @BeforeAll
    static void startHostsServerAndWorkers() throws Exception {
        Assumptions.assumeTrue(Files.isRegularFile(ItCluster.SERVER_JAR), "rendezvous server jar "
                + ItCluster.SERVER_JAR.toAbsolutePath() + " is absent: build it first");
        net = NetnsHosts.createOrSkip(1 + WORLD_SIZE);
        Files.createDirectories(LOGS);
        Files.deleteIfExists(LOGS.resolve("figures.txt"));
        processes.add(start(SERVER_HOST, "server", AotLaunch.SERVER.with(
                "--server.port=" + SERVER_PORT,
                "--allsum.rendezvous.heartbeat-timeout=" + HEARTBEAT_TIMEOUT.toSeconds() + "s",
                "--allsum.rendezvous.join-timeout=60s")));
        URI server = URI.create("http://" + net.address(SERVER_HOST) + ":" + SERVER_PORT);
        client = HttpAllsumClient.builder(server).requestTimeout(Duration.ofSeconds(5)).build();
        awaitHttp(processes.getFirst(), server.resolve("/actuator/health/readiness"));
        for (int rank = 0; rank < WORLD_SIZE; rank++) {
            workers.put(rank, startWorker(rank, server));
        }
        awaitGroup(s -> s.state() == GenerationState.COMPLETE, "the group to form across hosts");
    }

    @AfterAll
    static void stopEverything() throws Exception {
        for (HostProcess p : processes.reversed()) {
            p.stop();
        }
        if (client != null) {
            client.close();
        }
        if (net != null) {
            net.close();
        }
    }

    /** Rank r runs on host r+1; no address setting at all: the worker finds its own. */
    static HostProcess startWorker(int rank, URI server) throws IOException {
        // A host cut off for a while keeps failing its joins: it must outlast the partition, not exit.
        return startWorker(rank + 1, "rank" + rank, GROUP, rank, WORLD_SIZE, WORKER_PORT, server,
                List.of("--allsum.worker.max-restarts=1000"));
    }

    static HostProcess startWorker(int host, String name, String group, int rank, int worldSize, int httpPort,
                                   URI server, List<String> extra) throws IOException {
        List<String> args = new ArrayList<>(AotLaunch.WORKER.command());
        args.addAll(List.of(
                "--server.port=" + httpPort,
                "--allsum.worker.server=" + server,
                "--allsum.worker.group=" + group,
                "--allsum.worker.rank=" + rank,
                "--allsum.worker.world-size=" + worldSize,
                "--allsum.worker.backend=ring",
                "--allsum.worker.heartbeat-interval=300ms",
                "--allsum.worker.join-deadline=60s",
                "--allsum.worker.job-poll-wait=2s"));
        if (extra.stream().noneMatch(a -> a.startsWith("--allsum.worker.collective-deadline="))) {
            args.add("--allsum.worker.collective-deadline=" + COLLECTIVE_DEADLINE.toSeconds() + "s");
        }
        args.addAll(extra);
        HostProcess p = start(host, name, args);
        processes.add(p);
        return p;
    }

    static HostProcess start(int host, String name, List<String> javaArgs) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(JvmProcess.javaExecutable().toString());
        command.addAll(JvmProcess.FAST_START);
        command.addAll(javaArgs);
        Path log = LOGS.resolve(name + ".log");
        ProcessBuilder pb = new ProcessBuilder(net.inHost(host, command)).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("ALLSUM_") || k.equals("RANK") || k.equals("WORLD_SIZE")
                || k.equals("LOCAL_RANK") || k.startsWith("MLX_") || k.startsWith("SLURM_")
                || k.equals("JOB_COMPLETION_INDEX"));
        return new HostProcess(name, pb.start(), log);
    }

    @Test
    @Order(1)
    void eachWorkerAdvertisesItsOwnHostsAddressChosenFromTheRouteToTheServer() {
        GroupStatus status = client.status(GROUP);
        assertThat(status.members()).hasSize(WORLD_SIZE);
        for (MemberStatus m : status.members()) {
            String expected = net.address(m.rank() + 1);
            assertThat(m.endpoint()).as("rank %d endpoint", m.rank()).startsWith(expected + ":");
            assertThat(workers.get(m.rank()).output()).contains("Ring endpoint advertises " + expected
                    + " (route to the server " + net.address(SERVER_HOST) + ")");
        }
    }

    @Test
    @Order(2)
    void everyCollectiveAcrossHostsHasZeroWrongElements() throws Exception {
        SoftAssertions softly = new SoftAssertions();
        for (CollectiveOp op : CollectiveOp.values()) {
            JobSpec spec = JobSpec.builder().op(op).sizes(0L, 625L * 4).stepFactor(5).iterations(2, 1)
                    .timeoutSeconds(60).build();
            Job job = awaitJob(client.submitJob(GROUP, spec).jobId(), j -> j.state().isFinal());
            softly.assertThat(job.state()).as(op + ": " + job.failureReason()).isEqualTo(JobState.SUCCEEDED);
            softly.assertThat(job.reportedRanks()).as(op.toString()).containsExactlyInAnyOrder(0, 1, 2);
            softly.assertThat(job.results()).as(op.toString()).extracting(r -> new ExpectedSweep.Row(r.bytes(), r.count()))
                    .containsExactlyElementsOf(ExpectedSweep.rows(op, DataType.FLOAT32, WORLD_SIZE, 0, 625L * 4, 5));
            for (SizeResult row : job.results()) {
                softly.assertThat(row.wrongElements()).as(op + " at " + row.bytes() + " B").isZero();
            }
        }
        softly.assertAll();
    }

    @Test
    @Order(3)
    void aSlowLinkDoesNotFailAHealthyGroup() throws Exception {
        long generation = client.status(GROUP).generation();
        String slow = net.slowDown(2);
        Assumptions.assumeTrue(slow != null, "tc can neither delay (netem) nor rate-limit (tbf) here");
        try {
            long start = System.nanoTime();
            // 4 B .. 256 KiB all-reduces, 5 iterations each: every ring step crosses the slow link.
            Job job = awaitJob(client.submitJob(GROUP, JobSpec.builder().sizes(4L, 256L << 10).stepFactor(4)
                    .iterations(5, 1).timeoutSeconds(120).build()).jobId(), j -> j.state().isFinal());
            double seconds = (System.nanoTime() - start) / 1e9;
            assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
            assertThat(job.results()).allSatisfy(r -> assertThat(r.wrongElements()).isZero());
            // Idle for longer than the server's heartbeat timeout, heartbeats crossing the slow link.
            Thread.sleep(HEARTBEAT_TIMEOUT.toMillis() * 2);
            GroupStatus after = client.status(GROUP);
            assertThat(after.state()).isEqualTo(GenerationState.COMPLETE);
            assertThat(after.generation()).as("no re-form").isEqualTo(generation);
            figure("slow link (rank 1's host, %s): all-reduce 4 B..256 KiB x5 iterations succeeded in %.1f s, "
                    + "0 wrong, generation unchanged", slow, seconds);
        } finally {
            net.restoreSpeed(2);
        }
    }

    @Test
    @Order(4)
    void anIdleHostCutOffIsDetectedAndTheGroupReformsWhenTheLinkReturns() throws Exception {
        long generation = client.status(GROUP).generation();
        int victim = 2;
        long cut = System.nanoTime();
        net.link(victim + 1, false);
        GroupStatus failed = awaitGroup(s -> s.generation() > generation || s.state() != GenerationState.COMPLETE,
                "the server to notice rank " + victim + " is gone");
        double detected = (System.nanoTime() - cut) / 1e9;
        Thread.sleep(5000);
        long restore = System.nanoTime();
        net.link(victim + 1, true);
        GroupStatus reformed = awaitGroup(s -> s.generation() > generation && s.state() == GenerationState.COMPLETE,
                "the group to re-form after the link returns");
        double reform = (System.nanoTime() - restore) / 1e9;
        assertThat(failed.failureReason() + " " + failed.missingRanks()).contains(String.valueOf(victim));
        figure("idle partition (rank %d's host unplugged): server noticed in %.1f s (%s: %s, missing %s); "
                        + "link back after 5 s: generation %d complete %.1f s later", victim, detected, failed.state(),
                failed.failureReason(), failed.missingRanks(), reformed.generation(), reform);
        assertRunsCorrectly(reformed.generation());
    }

    @Test
    @Order(5)
    void aHostCutOffMidJobFailsTheJobNamingTheRankAndTheGroupReforms() throws Exception {
        long generation = client.status(GROUP).generation();
        int victim = 1;
        Job running = client.submitJob(GROUP, JobSpec.builder().size(1L << 20)
                .iterations(1_000_000, 1).timeoutSeconds(600).build());
        awaitJob(running.jobId(), j -> j.state() == JobState.RUNNING);
        Thread.sleep(1000);
        long cut = System.nanoTime();
        net.link(victim + 1, false);
        Job failed = awaitJob(running.jobId(), j -> j.state().isFinal());
        double detected = (System.nanoTime() - cut) / 1e9;
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank " + victim);
        Thread.sleep(2000);
        long restore = System.nanoTime();
        net.link(victim + 1, true);
        GroupStatus reformed = awaitGroup(s -> s.generation() > generation && s.state() == GenerationState.COMPLETE,
                "the group to re-form after the link returns");
        double reform = (System.nanoTime() - restore) / 1e9;
        figure("mid-job partition (rank %d's host unplugged during 1 MiB all-reduces): job FAILED %.1f s after the "
                + "cut (\"%s\"); link back: generation %d complete %.1f s later", victim, detected,
                failed.failureReason(), reformed.generation(), reform);
        assertRunsCorrectly(reformed.generation());
    }

    @Test
    @Order(6)
    void aPeerAdvertisingAnAddressNobodyReachesFailsTheGroupNamingThatAddress() throws Exception {
        String unreachable = net.unusedAddress();
        URI server = URI.create("http://" + net.address(SERVER_HOST) + ":" + SERVER_PORT);
        // max-restarts=0: the first failed generation ends each worker, with its reason in the log; the dial gives
        // up at the collective deadline, which nothing else in this group needs long.
        String deadline = "--allsum.worker.collective-deadline=" + DIAL_DEADLINE.toSeconds() + "s";
        HostProcess dialer = startWorker(1, "bad-rank0", "unreachable-2", 0, 2, WORKER_PORT + 1, server,
                List.of("--allsum.worker.max-restarts=0", deadline));
        HostProcess wrong = startWorker(2, "bad-rank1", "unreachable-2", 1, 2, WORKER_PORT + 1, server,
                List.of("--allsum.worker.max-restarts=0", deadline, "--allsum.worker.ring-advertise-host=" + unreachable));
        long start = System.nanoTime();
        assertThat(dialer.process().waitFor(DEADLINE.toSeconds(), TimeUnit.SECONDS)).as(dialer.tail()).isTrue();
        double seconds = (System.nanoTime() - start) / 1e9;
        assertThat(dialer.output()).contains("gives up after 0 restarts");
        // Rank 0 dials rank 1: its error names the rank and the address it could not reach.
        assertThat(dialer.output()).containsPattern("peer rank 1 at " + Pattern.quote(unreachable) + ":\\d+");
        wrong.stop();
        figure("a rank advertising %s (no such host): rank 0 gave up after %.1f s (collective deadline %d s), "
                + "its error naming \"peer rank 1 at %s:<port>\"", unreachable, seconds,
                DIAL_DEADLINE.toSeconds(), unreachable);
    }

    private static void assertRunsCorrectly(long generation) throws Exception {
        Job job = awaitJob(client.submitJob(GROUP, JobSpec.builder().sizes(4L, 4096L).stepFactor(4)
                .iterations(2, 1).timeoutSeconds(60).build()).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(job.generation()).isEqualTo(generation);
        assertThat(job.results()).isNotEmpty().allSatisfy(r -> assertThat(r.wrongElements()).isZero());
    }

    private static void figure(String format, Object... args) throws IOException {
        String line = String.format(format, args);
        System.out.println("[netns figure] " + line);
        Files.writeString(LOGS.resolve("figures.txt"), line + System.lineSeparator(), StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static Job awaitJob(String jobId, Predicate<Job> condition) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        Job job = null;
        while (System.nanoTime() < end) {
            try {
                job = client.job(GROUP, jobId);
                if (condition.test(job)) {
                    return job;
                }
            } catch (RuntimeException e) {
                // the server is reachable from the test at all times; a transient error is retried
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job " + jobId + " not as expected within " + DEADLINE + ": " + job + logs());
    }

    private static GroupStatus awaitGroup(Predicate<GroupStatus> condition, String what) throws InterruptedException {
        long end = System.nanoTime() + DEADLINE.toNanos();
        GroupStatus status = null;
        while (System.nanoTime() < end) {
            try {
                status = client.status(GROUP);
                if (condition.test(status)) {
                    return status;
                }
            } catch (RuntimeException e) {
                // not there yet (group unknown before the first join)
            }
            for (HostProcess p : processes) {
                if (!p.process().isAlive()) {
                    throw new AssertionError(p.name() + " exited while waiting for " + what + ":\n" + p.tail());
                }
            }
            Thread.sleep(100);
        }
        throw new AssertionError("waited " + DEADLINE + " for " + what + "; last status " + status + logs());
    }

    private static void awaitHttp(HostProcess p, URI uri) throws Exception {
        try (var http = java.net.http.HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            long end = System.nanoTime() + DEADLINE.toNanos();
            while (System.nanoTime() < end) {
                if (!p.process().isAlive()) {
                    throw new AssertionError(p.name() + " exited:\n" + p.tail());
                }
                try {
                    var r = http.send(java.net.http.HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).build(),
                            java.net.http.HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return;
                    }
                } catch (IOException e) {
                    // not listening yet
                }
                Thread.sleep(200);
            }
            throw new AssertionError(p.name() + " not ready at " + uri + ":\n" + p.tail());
        }
    }

    private static String logs() {
        StringBuilder b = new StringBuilder();
        for (HostProcess p : processes) {
            b.append("\n--- ").append(p.name()).append(" ---\n").append(p.tail());
        }
        return b.toString();
    }

}
