package io.allsum.worker.it;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults injected into a real 3-rank ring group (server and workers are separate JVMs on loopback, with a token):
 * a forged-handshake flood against a ring port, kill -9 and SIGSTOP of a rank while idle and mid-job, and a join
 * refused for a wrong token (exit code 2). After each fault the group must re-form and run a job correctly; the times are printed and written to
 * {@code target/it-logs/ring-faults/figures.md} (docs/reliability.md quotes them).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RingFaultInjectionIT {

    static final String GROUP = "faults-3";
    static final int WORLD_SIZE = 3;
    static final Duration DEADLINE = Duration.ofSeconds(120);
    static final String TOKEN = "it-" + Long.toHexString(ThreadLocalRandom.current().nextLong())
            + Long.toHexString(ThreadLocalRandom.current().nextLong());
    /** ItCluster's timing, with room for every fault of this suite in the restart budget. */
    static final List<String> TIMING = List.of(
            "--allsum.worker.heartbeat-interval=300ms",
            "--allsum.worker.collective-deadline=20s",
            "--allsum.worker.join-deadline=90s",
            "--allsum.worker.job-poll-wait=2s",
            "--allsum.worker.max-restarts=50");
    static final JobSpec SMALL = JobSpec.builder().sizes(4L, 4096L).stepFactor(4).iterations(2, 1).timeoutSeconds(60)
            .build();
    static final JobSpec ENDLESS = JobSpec.builder().size(1L << 20).iterations(1_000_000, 1).timeoutSeconds(600)
            .build();

    static ItCluster cluster;
    static List<ItCluster.Worker> workers;
    static int incarnation = 1;
    static final List<String> figures = new ArrayList<>();
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @BeforeAll
    static void startGroup() throws Exception {
        cluster = ItCluster.start("ring-faults", TOKEN, TIMING);
        workers = new ArrayList<>(cluster.startGroup(GROUP, WORLD_SIZE));
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (cluster != null) {
            cluster.close();
        }
        Path out = Path.of("target", "it-logs", "ring-faults", "figures.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, String.join("\n", figures) + "\n");
    }

    @Test
    @Order(1)
    void workerHttpNeedsTheTokenExceptOnTheProbesAndReadsNoBodyWithoutIt() throws Exception {
        ItCluster.Worker w = workers.getFirst();
        assertThat(send(w.uri("/actuator/prometheus"), null, null).statusCode()).isEqualTo(401);
        assertThat(send(w.uri("/actuator/health"), null, null).statusCode()).isEqualTo(401);
        assertThat(send(w.uri("/jobs"), null, "{garbage").statusCode()).isEqualTo(401);
        assertThat(send(w.uri("/actuator/prometheus"), "bearer " + TOKEN, null).statusCode()).isEqualTo(200);
        assertThat(send(w.uri("/actuator/health"), "BEARER " + TOKEN, null).body()).contains("\"generation\"");
        HttpResponse<String> readiness = send(w.uri("/actuator/health/readiness"), null, null);
        assertThat(readiness.statusCode()).isEqualTo(200);
        assertThat(readiness.body()).doesNotContain(GROUP).doesNotContain("generation");
    }

    @Test
    @Order(2)
    void forgedHandshakeFloodLeavesTheGroupAbleToReformAndDescriptorsReturnToBaseline() throws Exception {
        GroupStatus before = cluster.client().status(GROUP);
        ItCluster.Worker victim = workers.get(2);
        long pid = victim.process().process().pid();
        String endpoint = before.members().stream().filter(m -> m.rank() == 2).findFirst().orElseThrow().endpoint();
        int port = Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1));
        long baseline = descriptors(pid);
        AtomicLong peak = new AtomicLong(baseline);
        AtomicLong refusedOrClosed = new AtomicLong();
        // From 127.0.0.2: another "host" than the group's ranks, as an attacker on the network would be.
        InetAddress attacker = InetAddress.getByName("127.0.0.2");
        ExecutorService pool = Executors.newFixedThreadPool(64);
        List<Future<?>> attacks = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < 4096; i++) {
            int n = i;
            attacks.add(pool.submit(() -> {
                peak.accumulateAndGet(descriptors(pid), Math::max);
                try (Socket s = new Socket()) {
                    s.bind(new InetSocketAddress(attacker, 0));
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
                    s.setSoTimeout(15_000);
                    if (n % 8 != 0) { // every 8th stays silent
                        long generation = n % 2 == 0 ? before.generation() : before.generation() + 1000 + n;
                        s.getOutputStream().write(forgedHello(GROUP, generation));
                    }
                    drain(s.getInputStream());
                    refusedOrClosed.incrementAndGet();
                } catch (IOException e) {
                    refusedOrClosed.incrementAndGet();
                }
                return null;
            }));
        }
        // While the flood goes on, rank 0 dies and comes back: the group must form its next generation.
        Thread.sleep(300);
        long killedAt = System.nanoTime();
        workers.get(0).process().kill();
        workers.set(0, cluster.restartWorker(GROUP, 0, WORLD_SIZE, ++incarnation));
        awaitAllReady();
        long reformed = System.nanoTime();
        Job job = awaitJob(cluster.client().submitJob(GROUP, SMALL).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        for (Future<?> f : attacks) {
            f.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        }
        long floodDone = System.nanoTime();
        pool.shutdown();
        long settle = System.nanoTime();
        long after = descriptors(pid);
        while (after > baseline + 4 && System.nanoTime() - settle < TimeUnit.SECONDS.toNanos(30)) {
            Thread.sleep(100);
            after = descriptors(pid);
        }
        GroupStatus now = cluster.client().status(GROUP);
        assertThat(now.state()).isEqualTo(GenerationState.COMPLETE);
        assertThat(now.generation()).isGreaterThan(before.generation());
        assertThat(after).as("descriptors of rank 2 after the flood (baseline " + baseline + ")")
                .isLessThanOrEqualTo(baseline + 4);
        assertThat(peak.get()).as("peak descriptors").isLessThan(baseline + 512);
        record("forged-handshake flood", "4096 connections from 127.0.0.2 (1/8 silent, 7/16 forged proof for the"
                + " current generation, 7/16 for a far-future one), 64 at a time; rank 0 kill -9 + restart during it",
                String.format(Locale.ROOT, "flood lasted %.1f s; group re-formed (generation %d -> %d) %.1f s after"
                        + " the kill; rank 2 descriptors %d before, peak %d, %d after", secs(floodDone - start),
                        before.generation(), now.generation(), secs(reformed - killedAt), baseline, peak.get(), after),
                "0");
    }

    @Test
    @Order(3)
    void idleRankKilledIsDetectedByItsNeighboursAndTheGroupReforms() throws Exception {
        GroupStatus before = awaitAllReady();
        Thread.sleep(1000); // idle: no job
        long killedAt = System.nanoTime();
        workers.get(1).process().kill();
        GroupStatus failed = awaitStatus(s -> s.generation() > before.generation()
                || s.state() != GenerationState.COMPLETE);
        long detected = System.nanoTime();
        workers.set(1, cluster.restartWorker(GROUP, 1, WORLD_SIZE, ++incarnation));
        GroupStatus reformed = awaitAllReady();
        long ready = System.nanoTime();
        Job job = awaitJob(cluster.client().submitJob(GROUP, SMALL).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(reformed.generation()).isGreaterThan(before.generation());
        assertThat(secs(detected - killedAt)).as("detection of an idle rank's death, s").isLessThan(10);
        record("kill -9 of an idle rank", "SIGKILL rank 1 with no job running; restart it",
                String.format(Locale.ROOT, "server saw the generation fail %.2f s after the kill (%s); group complete"
                                + " again %.1f s after the kill (including the restarted JVM's start-up)",
                        secs(detected - killedAt), reason(failed), secs(ready - killedAt)), "0");
    }

    @Test
    @Order(4)
    void rankKilledMidJobFailsThatJobNamingItAndTheGroupReforms() throws Exception {
        GroupStatus before = awaitAllReady();
        Job running = cluster.client().submitJob(GROUP, ENDLESS);
        awaitJob(running.jobId(), j -> j.state() == JobState.RUNNING);
        Thread.sleep(1000);
        long killedAt = System.nanoTime();
        workers.get(2).process().kill();
        Job failed = awaitJob(running.jobId(), j -> j.state().isFinal());
        long detected = System.nanoTime();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank 2");
        workers.set(2, cluster.restartWorker(GROUP, 2, WORLD_SIZE, ++incarnation));
        GroupStatus reformed = awaitAllReady();
        long ready = System.nanoTime();
        Job job = awaitJob(cluster.client().submitJob(GROUP, SMALL).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(reformed.generation()).isGreaterThan(before.generation());
        record("kill -9 of a rank mid-job", "SIGKILL rank 2 inside a 1 MiB all-reduce loop; restart it",
                String.format(Locale.ROOT, "job FAILED naming rank 2 %.2f s after the kill; group complete again"
                        + " %.1f s after the kill", secs(detected - killedAt), secs(ready - killedAt)),
                "1 (the running job, reported FAILED with the rank)");
    }

    @Test
    @Order(5)
    void idleRankStoppedIsDroppedAfterTheHeartbeatTimeoutAndRejoinsWhenContinued() throws Exception {
        GroupStatus before = awaitAllReady();
        Thread.sleep(1000);
        JvmProcess stopped = workers.get(1).process();
        long stoppedAt = System.nanoTime();
        stopped.signal("STOP");
        GroupStatus failed;
        try {
            failed = awaitStatus(s -> s.generation() > before.generation()
                    || s.state() != GenerationState.COMPLETE);
        } finally {
            stopped.signal("CONT");
        }
        long detected = System.nanoTime();
        GroupStatus reformed = awaitAllReady();
        long ready = System.nanoTime();
        Job job = awaitJob(cluster.client().submitJob(GROUP, SMALL).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(reformed.generation()).isGreaterThan(before.generation());
        record("SIGSTOP of an idle rank", "SIGSTOP rank 1 with no job running; SIGCONT once the server gave up"
                        + " its generation",
                String.format(Locale.ROOT, "server failed the generation %.2f s after the stop (%s); group complete"
                                + " again %.1f s after SIGCONT", secs(detected - stoppedAt), reason(failed),
                        secs(ready - detected)), "0");
    }

    @Test
    @Order(6)
    void rankStoppedMidJobFailsThatJobAndTheGroupReformsWhenContinued() throws Exception {
        GroupStatus before = awaitAllReady();
        Job running = cluster.client().submitJob(GROUP, ENDLESS);
        awaitJob(running.jobId(), j -> j.state() == JobState.RUNNING);
        Thread.sleep(1000);
        JvmProcess stopped = workers.get(0).process();
        long stoppedAt = System.nanoTime();
        stopped.signal("STOP");
        Job failed;
        try {
            failed = awaitJob(running.jobId(), j -> j.state().isFinal());
        } finally {
            stopped.signal("CONT");
        }
        long detected = System.nanoTime();
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        GroupStatus reformed = awaitAllReady();
        long ready = System.nanoTime();
        Job job = awaitJob(cluster.client().submitJob(GROUP, SMALL).jobId(), j -> j.state().isFinal());
        assertThat(job.state()).as(job.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(reformed.generation()).isGreaterThan(before.generation());
        record("SIGSTOP of a rank mid-job", "SIGSTOP rank 0 inside a 1 MiB all-reduce loop; SIGCONT once the job"
                        + " failed",
                String.format(Locale.ROOT, "job FAILED %.2f s after the stop (%s); group complete again %.1f s after"
                        + " SIGCONT", secs(detected - stoppedAt), failed.failureReason(), secs(ready - detected)),
                "1 (the running job, reported FAILED)");
    }

    @Test
    @Order(7)
    void workerWhoseJoinIsRefusedExitsWithCode2() throws Exception {
        long start = System.nanoTime();
        try (JvmProcess w = JvmProcess.start("wrong-token", Path.of("target", "it-logs", "ring-faults"), List.of(),
                AotLaunch.WORKER.with(
                        "--server.address=127.0.0.1",
                        "--allsum.worker.server=" + cluster.serverUri(),
                        "--allsum.worker.token=not-" + TOKEN,
                        "--allsum.worker.group=refused", "--allsum.worker.rank=0",
                        "--allsum.worker.world-size=2", "--allsum.worker.backend=ring",
                        "--allsum.worker.ring-bind-host=127.0.0.1"))) {
            assertThat(w.awaitExit(DEADLINE)).as(w.tail()).isEqualTo(2);
            assertThat(w.output()).contains("rejected the join");
        }
        record("refused join", "a worker with a wrong token joins", String.format(Locale.ROOT,
                "exit code 2, %.1f s after its JVM was started", secs(System.nanoTime() - start)), "0");
    }

    // ---------------------------------------------------------------- helpers

    /** A ring hello (version 2) whose proof is random bytes: what anyone without the unique id can send. */
    static byte[] forgedHello(String group, long generation) {
        byte[] g = group.getBytes(StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 2 + 2 + g.length + 8 + 2 + 12 + 64);
        b.putInt(0x414C5352).putShort((short) 3).putShort((short) g.length).put(g).putLong(generation);
        b.putShort((short) 0).putInt(0).putInt(2).putInt(WORLD_SIZE);
        byte[] nonceAndMac = new byte[64];
        ThreadLocalRandom.current().nextBytes(nonceAndMac);
        return b.put(nonceAndMac).array();
    }

    private static void drain(InputStream in) throws IOException {
        byte[] buf = new byte[256];
        while (in.read(buf) >= 0) {
            // the listener's challenge and refusal, until it closes
        }
    }

    static long descriptors(long pid) {
        try (Stream<Path> fds = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return fds.count();
        } catch (IOException e) {
            return -1;
        }
    }

    private HttpResponse<String> send(URI uri, String authorization, String jsonBody) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (authorization != null) {
            b.header("Authorization", authorization);
        }
        if (jsonBody != null) {
            b.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(jsonBody));
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static GroupStatus awaitAllReady() throws InterruptedException {
        for (ItCluster.Worker w : workers) {
            cluster.awaitReady(w);
        }
        return awaitStatus(s -> s.state() == GenerationState.COMPLETE);
    }

    private static GroupStatus awaitStatus(Predicate<GroupStatus> condition) throws InterruptedException {
        return cluster.awaitStatus(GROUP, condition, DEADLINE);
    }

    private static Job awaitJob(String jobId, Predicate<Job> condition) throws InterruptedException {
        return cluster.awaitJob(GROUP, jobId, condition, DEADLINE);
    }

    private static String reason(GroupStatus s) {
        return s.failureReason() != null ? s.failureReason() : "state " + s.state() + " generation " + s.generation();
    }

    private static double secs(long nanos) {
        return nanos / 1e9;
    }

    private static void record(String fault, String injected, String outcome, String jobsLost) {
        String line = "| " + fault + " | " + injected + " | " + outcome + " | " + jobsLost + " |";
        figures.add(line);
        System.out.println("[fault-injection] " + line);
    }
}
