package io.allsum.bench.dispatch;

import io.allsum.client.AllsumClient;
import io.allsum.launcher.ByteSizeConverter;
import io.allsum.launcher.Clients;
import io.allsum.launcher.Deadline;
import io.allsum.launcher.ExitCodes;
import io.allsum.launcher.JobSession;
import io.allsum.launcher.LauncherException;
import io.allsum.launcher.LocalCluster;
import io.allsum.launcher.ProcessLayout;
import io.allsum.launcher.Progress;
import io.allsum.launcher.ServerProbe;
import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;

/**
 * {@code allsum bench-dispatch}: the job pipeline's own cost. For each world size it starts a local ring cluster and
 * runs many tiny all-sum jobs one after another, then reports, as median and p90 over the jobs: the server's
 * dispatch latency (submit until every rank started), the collective's own time per iteration as the ranks measured
 * it (the direct communicator call), the job's time on the server (submitted until finished) and the wall time the
 * client saw (submit call until it read the final state). Pipeline overhead = client wall time - iterations x
 * collective time.
 */
@Command(name = "bench-dispatch", mixinStandardHelpOptions = true,
        description = "Dispatch latency and job pipeline overhead of tiny all-sum jobs on local ring ranks.")
public final class DispatchBenchmark implements Callable<Integer> {

    @Option(names = "--ranks", split = ",", defaultValue = "4,8", paramLabel = "N[,N...]",
            description = "World sizes to measure (default ${DEFAULT-VALUE}).")
    int[] worldSizes;

    @Option(names = "--jobs", defaultValue = "50", description = "Measured jobs per world size (default ${DEFAULT-VALUE}).")
    int jobs;

    @Option(names = "--warmup-jobs", defaultValue = "10", description = "Unmeasured jobs first (default ${DEFAULT-VALUE}).")
    int warmupJobs;

    @Option(names = {"-b", "--bytes"}, defaultValue = "4", converter = ByteSizeConverter.class,
            description = "All-sum size in bytes (default ${DEFAULT-VALUE}: one float).")
    long bytes;

    @Option(names = {"-n", "--iters"}, defaultValue = "1", description = "Iterations per job (default ${DEFAULT-VALUE}).")
    int iterations;

    @Option(names = "--timeout", defaultValue = "600", description = "Deadline per world size, seconds (default ${DEFAULT-VALUE}).")
    int timeoutSeconds;

    /** One measured job, in microseconds. */
    record Sample(double dispatch, double collective, double serverJob, double clientWall) {
    }

    @Override
    public Integer call() {
        PrintStream out = System.out;
        Progress progress = Progress.toStderr(false);
        out.printf(Locale.ROOT, "# allsum bench-dispatch: %d-byte float32 all-sum, %d iteration(s) per job, %d jobs "
                + "(+%d warm-up), ring backend, %d cpus%n", bytes, iterations, jobs, warmupJobs,
                Runtime.getRuntime().availableProcessors());
        out.println("# ranks  metric                    median_us      p90_us");
        ProcessLayout layout = ProcessLayout.resolve(System.getenv("ALLSUM_HOME"), ProcessLayout.findRepoRoot(),
                ProcessLayout.currentJava());
        for (int ranks : worldSizes) {
            List<Sample> samples = measure(layout, ranks, progress);
            print(out, ranks, "dispatch latency", samples.stream().mapToDouble(Sample::dispatch).toArray());
            print(out, ranks, "collective per iteration", samples.stream().mapToDouble(Sample::collective).toArray());
            print(out, ranks, "job on server", samples.stream().mapToDouble(Sample::serverJob).toArray());
            print(out, ranks, "client wall per job", samples.stream().mapToDouble(Sample::clientWall).toArray());
            print(out, ranks, "pipeline overhead", samples.stream()
                    .mapToDouble(s -> s.clientWall() - iterations * s.collective()).toArray());
            out.flush();
        }
        return ExitCodes.OK;
    }

    private List<Sample> measure(ProcessLayout layout, int ranks, Progress progress) {
        Deadline deadline = Deadline.in(Duration.ofSeconds(timeoutSeconds));
        JobSpec spec = JobSpec.builder().size(bytes).iterations(iterations, 0).timeoutSeconds(60).build();
        try (LocalCluster cluster = LocalCluster.start(layout, Backend.RING, ranks, List.of(), "bench-dispatch")) {
            progress.event("started " + ranks + " ring ranks; logs in " + cluster.logDir());
            new ServerProbe(cluster.serverUri()).awaitHealthy(deadline, cluster::checkAlive);
            try (AllsumClient client = Clients.connect(cluster.serverUri(), cluster.token())) {
                JobSession session = new JobSession(client, cluster.group(), cluster::checkAlive, progress);
                session.awaitComplete(deadline, true);
                List<Sample> samples = new ArrayList<>();
                for (int i = 0; i < warmupJobs + jobs; i++) {
                    Sample s = runOne(client, cluster, spec, deadline);
                    if (i >= warmupJobs) {
                        samples.add(s);
                    }
                }
                progress.event(ranks + " ranks: " + samples.size() + " jobs measured");
                return samples;
            }
        }
    }

    private Sample runOne(AllsumClient client, LocalCluster cluster, JobSpec spec, Deadline deadline) {
        long start = System.nanoTime();
        Job job = client.submitJob(cluster.group(), spec);
        while (!job.state().isFinal()) {
            cluster.checkAlive();
            if (deadline.passed()) {
                throw new LauncherException("bench job " + job.jobId() + " did not finish in time");
            }
            // 1 ms polls: fine enough for the wall time, without starving the ranks of the 2 cores.
            deadline.sleep(Duration.ofMillis(1));
            job = client.job(cluster.group(), job.jobId());
        }
        double wall = (System.nanoTime() - start) / 1e3;
        if (job.state() != JobState.SUCCEEDED || job.results() == null || job.results().isEmpty()) {
            throw new LauncherException("bench job " + job.jobId() + " " + job.state() + ": " + job.failureReason());
        }
        double server = job.finishedAt() != null && job.submittedAt() != null
                ? Duration.between(job.submittedAt(), job.finishedAt()).toNanos() / 1e3 : Double.NaN;
        double dispatch = job.dispatchLatencyMicros() == null ? Double.NaN : job.dispatchLatencyMicros();
        return new Sample(dispatch, job.results().getFirst().timeMicros(), server, wall);
    }

    private static void print(PrintStream out, int ranks, String metric, double[] values) {
        out.printf(Locale.ROOT, "%7d  %-24s %11.1f %11.1f%n", ranks, metric, percentile(values, 50),
                percentile(values, 90));
    }

    /** Nearest-rank percentile; NaN when there are no values. */
    static double percentile(double[] values, double p) {
        double[] sorted = Arrays.stream(values).filter(v -> !Double.isNaN(v)).sorted().toArray();
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.clamp(index, 0, sorted.length - 1)];
    }
}
