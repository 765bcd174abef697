package io.allsum.server.jobs;

import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import org.flywaydb.core.Flyway;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * What the history costs a job: the time of the store's writes per job (insert at submission, dispatch, final
 * state) on the H2 file database against H2 in memory. A measurement to run by hand, not a test:
 * <pre>
 * ./mvnw -q -pl rendezvous-server -am test-compile -DskipTests
 * ./mvnw -q -pl rendezvous-server dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * java -cp rendezvous-server/target/test-classes:rendezvous-server/target/classes:$(cat /tmp/cp.txt) \
 *     io.allsum.server.jobs.JobStoreProbe 2000
 * </pre>
 */
public final class JobStoreProbe {

    public static void main(String[] args) throws Exception {
        int jobs = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        Path dir = Files.createTempDirectory("allsum-store-probe");
        System.out.printf("# %d jobs per database, %d cpus, load average %s%n", jobs,
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println("# database      submit_median_us  dispatch_median_us  final_median_us  p90_total_us");
        for (int round = 0; round < 2; round++) {
            probe("h2-file", "jdbc:h2:file:" + dir.resolve("probe-" + round) + ";DB_CLOSE_ON_EXIT=FALSE", jobs);
            probe("h2-memory", "jdbc:h2:mem:probe-" + round + ";DB_CLOSE_DELAY=-1", jobs);
        }
    }

    private static void probe(String name, String url, int jobs) {
        SingleConnectionDataSource ds = new SingleConnectionDataSource(url, "sa", "", true);
        Flyway.configure().dataSource(ds).locations("classpath:db/migration").load().migrate();
        JobStore store = new JobStore(JdbcClient.create(ds));
        List<RankSizeResult> results = JobSpec.allSum(4).sizes(8).stream()
                .map(b -> new RankSizeResult(b, b / 4, 10.0, 0)).toList();
        long[] submit = new long[jobs];
        long[] dispatch = new long[jobs];
        long[] done = new long[jobs];
        for (int i = 0; i < jobs; i++) {
            JobRecord job = new JobRecord(UUID.randomUUID().toString(), "probe", i + 1, JobSpec.allSum(4),
                    Instant.now(), System.nanoTime());
            long t0 = System.nanoTime();
            store.trim("probe", 999);
            store.insert(job);
            long t1 = System.nanoTime();
            job.state = JobState.RUNNING;
            job.generation = 1L;
            job.worldSize = 8;
            job.dispatchedAt = Instant.now();
            store.saveDispatch(job);
            long t2 = System.nanoTime();
            for (int rank = 0; rank < 8; rank++) {
                job.reports.put(rank, new RankReport(rank, "i" + rank, 1L, true, null, results));
            }
            job.state = JobState.SUCCEEDED;
            job.finishedAt = Instant.now();
            job.results = ResultAggregator.aggregate(job.spec.op(), 8, job.spec.sizes(8), job.reports.values());
            store.saveFinal(job);
            long t3 = System.nanoTime();
            submit[i] = t1 - t0;
            dispatch[i] = t2 - t1;
            done[i] = t3 - t2;
        }
        long[] total = new long[jobs];
        for (int i = 0; i < jobs; i++) {
            total[i] = submit[i] + dispatch[i] + done[i];
        }
        System.out.printf("%-14s %17.1f %19.1f %16.1f %13.1f%n", name, median(submit), median(dispatch), median(done),
                percentile(total, 0.9));
        ds.destroy();
    }

    private static double median(long[] nanos) {
        return percentile(nanos, 0.5);
    }

    private static double percentile(long[] nanos, double q) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[(int) Math.min(sorted.length - 1, Math.round(q * (sorted.length - 1)))] / 1e3;
    }
}
