package io.allsum.worker.it;

import io.allsum.client.AllsumJson;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * Groups of 2, 3 and 4 real worker JVMs (ring backend) against the real rendezvous server: every collective x
 * every dtype (every reduction for all-reduce), over a sweep whose counts are not divisible by the world size;
 * each job must succeed with zero wrong elements and exactly the rows computed here. Every sweep starts with a
 * zero-length size.
 */
class RingGroupsIT {

    /**
     * Sweep 0 B, then one element (one element per rank for gather ops) x5 .. 625 B: most counts (1, 5, 25, 125)
     * are not divisible by 2, 3 or 4 ranks.
     */
    static final long MIN_BYTES = 0;
    static final long MAX_BYTES = 625;
    static final int STEP = 5;
    static final Duration JOBS_DEADLINE = Duration.ofMinutes(4);

    @AutoClose
    static ItCluster cluster;

    @BeforeAll
    static void startServer() throws Exception {
        cluster = ItCluster.start("ring-groups");
    }

    record Case(CollectiveOp op, DataType dtype, ReduceOp redop) {
        JobSpec spec() {
            return JobSpec.builder().collective(op, dtype, redop).sizes(MIN_BYTES, MAX_BYTES).stepFactor(STEP)
                    .iterations(2, 1).timeoutSeconds(60).build();
        }
    }

    /** Every op x dtype; all-reduce with every reduction, the other reducing ops cycling through them. */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        ReduceOp[] redops = ReduceOp.values();
        for (CollectiveOp op : CollectiveOp.values()) {
            for (DataType dtype : DataType.values()) {
                if (op == CollectiveOp.ALL_REDUCE) {
                    for (ReduceOp redop : redops) {
                        cases.add(new Case(op, dtype, redop));
                    }
                } else {
                    cases.add(new Case(op, dtype, op.reduces() ? redops[dtype.ordinal() % redops.length] : ReduceOp.SUM));
                }
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} ranks")
    @ValueSource(ints = {2, 3, 4})
    void everyOpAndDtypeIsExactOnEveryRank(int worldSize) throws Exception {
        String group = "ring-" + worldSize;
        List<ItCluster.Worker> workers = cluster.startGroup(group, worldSize);
        GroupStatus status = cluster.client().status(group);
        assertThat(status.state()).isEqualTo(GenerationState.COMPLETE);
        assertThat(status.generation()).isEqualTo(1);

        List<Case> cases = cases();
        List<String> jobIds = new ArrayList<>();
        for (int i = 0; i < cases.size(); i++) {
            JobSpec spec = cases.get(i).spec();
            if (i % 10 == 0) {
                // Every tenth job goes through a worker's relay rather than to the server directly.
                ItCluster.Worker via = workers.get(i / 10 % worldSize);
                HttpResponse<String> answer = cluster.postJson(via.uri("/jobs"),
                        AllsumJson.mapper().writeValueAsString(spec));
                assertThat(answer).isNotNull();
                assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
                jobIds.add(AllsumJson.mapper().readValue(answer.body(), Job.class).jobId());
            } else {
                jobIds.add(cluster.client().submitJob(group, spec).jobId());
            }
        }

        Map<String, Job> finished = awaitAllFinal(group, jobIds);

        SoftAssertions softly = new SoftAssertions();
        List<Integer> allRanks = IntStream.range(0, worldSize).boxed().toList();
        for (int i = 0; i < cases.size(); i++) {
            Case c = cases.get(i);
            Job job = finished.get(jobIds.get(i));
            String what = c + " on " + worldSize + " ranks (job " + job.jobId() + ")";
            softly.assertThat(job.state()).as(what + ": " + job.failureReason()).isEqualTo(JobState.SUCCEEDED);
            if (job.state() != JobState.SUCCEEDED) {
                continue;
            }
            softly.assertThat(job.generation()).as(what).isEqualTo(1L);
            softly.assertThat(job.reportedRanks()).as(what).containsExactlyInAnyOrderElementsOf(allRanks);
            List<ExpectedSweep.Row> expected = ExpectedSweep.rows(c.op(), c.dtype(), worldSize, MIN_BYTES, MAX_BYTES,
                    STEP);
            softly.assertThat(job.results()).as(what).extracting(r -> new ExpectedSweep.Row(r.bytes(), r.count()))
                    .containsExactlyElementsOf(expected);
            for (SizeResult row : job.results()) {
                softly.assertThat(row.wrongElements()).as(what + " at " + row.bytes() + " B").isZero();
                if (row.bytes() > 0 && row.timeMicros() > 0) {
                    softly.assertThat(row.algBandwidthGBps()).as(what + " algbw")
                            .isCloseTo(row.bytes() / (row.timeMicros() * 1e3), within(1e-9 + row.algBandwidthGBps() * 1e-9));
                    softly.assertThat(row.busBandwidthGBps()).as(what + " busbw")
                            .isCloseTo(row.algBandwidthGBps() * ExpectedSweep.busFactor(c.op(), worldSize),
                                    within(1e-9 + row.busBandwidthGBps() * 1e-9));
                }
            }
        }
        softly.assertAll();

        // Status reads through a relay match the server's.
        String someJob = jobIds.get(1);
        HttpResponse<String> relayed = cluster.get(workers.getLast().uri("/jobs/" + someJob));
        assertThat(relayed).isNotNull();
        assertThat(relayed.statusCode()).isEqualTo(200);
        assertThat(AllsumJson.mapper().readValue(relayed.body(), Job.class).state()).isEqualTo(JobState.SUCCEEDED);
        HttpResponse<String> missing = cluster.get(workers.getFirst().uri("/jobs/no-such-job"));
        assertThat(missing.statusCode()).isEqualTo(404);
        assertThat(missing.headers().firstValue("Content-Type")).hasValueSatisfying(
                ct -> assertThat(ct).startsWith("application/problem+json"));

        // Every collective was metered, and the agent's own gauges are exported.
        HttpResponse<String> metrics = cluster.get(workers.getFirst().uri("/actuator/prometheus"));
        assertThat(metrics).isNotNull();
        assertThat(metrics.body()).contains("allsum_collective_seconds_count")
                .containsPattern("allsum_worker_ready(\\{[^}]*\\})? 1\\.0")
                .containsPattern("allsum_worker_generation(\\{[^}]*\\})? 1\\.0");

        cluster.stopGroup(group);
    }

    private static Map<String, Job> awaitAllFinal(String group, List<String> jobIds) throws InterruptedException {
        long end = System.nanoTime() + JOBS_DEADLINE.toNanos();
        Map<String, Job> byId = Map.of();
        while (System.nanoTime() < end) {
            byId = new HashMap<>(cluster.client().jobs(group).stream()
                    .collect(Collectors.toMap(Job::jobId, Function.identity())));
            for (String id : jobIds) {
                // The list may be bounded; read any job it left out one by one.
                byId.computeIfAbsent(id, missing -> cluster.client().job(group, missing));
            }
            Map<String, Job> snapshot = byId;
            if (jobIds.stream().allMatch(id -> snapshot.containsKey(id) && snapshot.get(id).state().isFinal())) {
                return byId;
            }
            Thread.sleep(250);
        }
        Map<String, Job> snapshot = byId;
        List<String> pending = jobIds.stream().filter(id -> !snapshot.containsKey(id)
                || !snapshot.get(id).state().isFinal()).toList();
        throw new AssertionError(pending.size() + " jobs of group " + group + " not final within " + JOBS_DEADLINE
                + ", first: " + snapshot.get(pending.getFirst()));
    }
}
