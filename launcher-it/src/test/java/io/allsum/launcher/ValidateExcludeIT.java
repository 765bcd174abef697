package io.allsum.launcher;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumJson;
import io.allsum.model.Backend;
import io.allsum.testing.CpuQuota;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code allsum validate --server ... --exclude} on a real local group of 4 ring ranks whose rank 3 runs in a CPU
 * cgroup that grants it 10 ms of every 100 ms: the verdict names rank 3, and the sweep runs again on the others. A
 * hard cap, unlike a busy machine's sharing, slows every exchange with that rank (its pairs fall 80% and more
 * short, also with a core kept busy beside the test; a smaller share only makes the test longer). Skipped where
 * this process cannot make a CPU cgroup (it needs root and a writable cgroup file system).
 */
@Isolated("it judges a group's speed: another test's processes on the same cores would be its fault")
class ValidateExcludeIT {

    private static final String GROUP = "exclude-it";
    private static final int RANKS = 4;
    private static final int SLOW_RANK = 3;

    @TempDir
    Path dir;

    @Test
    void aThrottledRankIsNamedLeftOutAndTheSweepRunsOnTheOthers() throws Exception {
        LauncherProcess.assumeReactorJars();
        Path repo = Path.of(System.getProperty("allsum.repo", "..")).toAbsolutePath().normalize();
        try (CpuQuota quota = CpuQuota.createOrSkip("allsum-exclude-it-" + ProcessHandle.current().pid())) {
            quota.limit(10_000, 100_000);
            ProcessLayout layout = withHeartbeatTimeout(ProcessLayout.resolve(null, repo, ProcessLayout.currentJava()));
            LocalCluster cluster = LocalCluster.start(layout, Backend.RING, RANKS, List.of(), GROUP,
                    LocalCluster.Options.DEFAULT.withAot(false).withWorkerHttp(false));
            try {
                Deadline deadline = Deadline.in(Duration.ofSeconds(240));
                new ServerProbe(cluster.serverUri()).awaitHealthy(deadline, cluster::checkAlive);
                try (AllsumClient client = Clients.connect(cluster.serverUri(), cluster.token())) {
                    new JobSession(client, GROUP, cluster::checkAlive, Progress.toStderr(true))
                            .awaitComplete(deadline, true);
                }
                // Throttled only once the group formed: its JVM starts at full speed, then measures slow.
                quota.add(cluster.workers().get(SLOW_RANK).process().pid());
                Path json = dir.resolve("validate.json");

                // --min-shortfall 0.5: five JVMs sharing a loaded machine's cores spread by tens of percent; the
                // throttled rank falls 80% short. Two sizes, two iterations: each collective waits for its slice.
                LauncherProcess.Result r = LauncherProcess.run(dir, 480, "validate", "--server",
                        cluster.serverUri().toString(), "--group", GROUP, "--token", cluster.token(), "--exclude",
                        "--min-shortfall", "0.5", "--solo-bytes", "1M", "--pair-bytes", "1M", "-b", "1M", "-e", "4M", "-n", "2", "-w", "1",
                        "--json", json.toString(), "--timeout", "400");

                // The run's output goes to the failsafe report (docs/validate.md quotes it).
                System.out.println(r.stdout());
                assertThat(r.exitCode()).as("exit code; stdout:%n%s%nstderr:%n%s", r.stdout(), r.stderr())
                        .isEqualTo(ExitCodes.FAILED);
                JsonNode record = AllsumJson.mapper().readTree(json.toFile());
                assertThat(record.get("verdict").asString()).isEqualTo("suspects");
                // the throttled worker read its own cgroup's CFS counters: the cause, next to what the timing saw
                assertThat(record.get("suspects")).anySatisfy(s -> {
                    assertThat(s.get("rank").asInt()).isEqualTo(SLOW_RANK);
                    assertThat(s.get("reason").asString()).contains("its CPU cgroup's quota ran out in");
                });
                List<Integer> left = new ArrayList<>();
                record.at("/excluded/ranks").forEach(n -> left.add(n.asInt()));
                assertThat(left).as("stdout:%n%s", r.stdout()).contains(SLOW_RANK).hasSizeLessThanOrEqualTo(RANKS - 2);
                int kept = RANKS - left.size();
                assertThat(r.stdout()).containsSubsequence("# phase 4: verdict: suspects", "validate: ",
                        "# without ranks " + left + ": the all-reduce sweep on the other " + kept + " ranks",
                        "ranks: " + kept + " ", "# Out of bounds values : 0 OK", "without ranks " + left + " (");
                assertThat(r.stdout().lines().toList().getLast()).startsWith("without ranks " + left + " (")
                        .containsPattern("busbw \\S+ GB/s at 4 MiB against \\S+ GB/s with all 4 \\(\\d+\\.\\d\\dx\\)");
                assertThat(record.at("/excluded/job/state").asString()).isEqualTo("succeeded");
                assertThat(record.at("/excluded/job/spec/excludeRanks")).hasSize(left.size());
                assertThat(record.at("/excluded/rows")).hasSize(record.at("/job/results").size());
                assertThat(record.at("/excluded/rows/0/rankTimesMicros")).as("the kept ranks' times only").hasSize(kept);
                assertThat(record.at("/excluded/ratio").asDouble()).isPositive();
                assertThat(record.get("exitCode").asInt()).isEqualTo(ExitCodes.FAILED);
            } finally {
                cluster.close(LocalCluster.Stop.quick()); // the jobs are over
            }
        }
    }

    /**
     * The server's heartbeat timeout 30 s (Spring's relaxed binding of the environment): at 10% of a core the throttled
     * JVM's heartbeats can lag past the default 10 s, which fails the generation instead of naming the rank.
     */
    private static ProcessLayout withHeartbeatTimeout(ProcessLayout layout) {
        ProcessLayout.Program server = layout.server();
        Map<String, String> env = new HashMap<>(server.env());
        env.put("ALLSUM_RENDEZVOUS_HEARTBEATTIMEOUT", "30s");
        return new ProcessLayout(new ProcessLayout.Program(server.jvm(), server.main(), server.aot(), env),
                layout.worker(), layout.plainWorker(), layout.ncclWorkerFlags(), layout.description());
    }
}
