package io.allsum.launcher;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code allsum validate --server URL --group G --token T} against a running 4-rank ring cluster (a
 * {@link LocalCluster} started by the test, with a short collective deadline), one rank killed (SIGKILL) once every
 * rank measured alone: one error line naming the pair phase and the rank, exit 1, within the deadline.
 */
@Isolated("it judges a group's speed: another test's processes on the same cores would be its fault")
class ValidateFaultIT {

    static final int RANKS = 4;
    static final int VICTIM = 2;
    static final Duration COLLECTIVE_DEADLINE = Duration.ofSeconds(10);
    /** Past the deadline: the failure report's way to the server and the launcher's next poll, on a busy machine. */
    static final Duration MARGIN = Duration.ofSeconds(15);

    @TempDir
    Path dir;

    @Test
    void aRankKilledInThePairPhaseIsOneLineNamingThePhaseAndTheRankAndExit1() throws Exception {
        LauncherProcess.launcherJar();
        LauncherProcess.assumeReactorJars();
        LocalCluster cluster = LocalCluster.start(withCollectiveDeadline(ProcessLayout.resolve(null,
                ProcessLayout.findRepoRoot(), ProcessLayout.currentJava())), Backend.RING, RANKS, List.of(), "faulty",
                LocalCluster.Options.DEFAULT.withAot(false).withWorkerHttp(false));
        boolean passed = false;
        try {
            new ServerProbe(cluster.serverUri()).awaitHealthy(Deadline.in(Duration.ofSeconds(180)),
                    cluster::checkAlive);
            // 4 MiB pairs, 2000 exchanges each: the pair rounds take seconds, the kill lands inside them.
            LauncherProcess.Started validate = LauncherProcess.start(dir, "validate", "--server",
                    cluster.serverUri().toString(), "--group", cluster.group(), "--token", cluster.token(), "-q",
                    "--solo-bytes", "1M", "--pair-bytes", "4M", "--pair-iters", "2000", "-b", "1K", "-e", "4K",
                    "--timeout", "240");
            awaitSoloPhasePrinted(validate, cluster);
            long killedAt = System.nanoTime();
            cluster.workers().get(VICTIM).process().destroyForcibly();

            LauncherProcess.Result r = validate.await(COLLECTIVE_DEADLINE.plus(MARGIN).toSeconds());
            System.out.printf(Locale.ROOT, "[validate fault] exit %d %.2f s after the kill: %s%n", r.exitCode(),
                    (System.nanoTime() - killedAt) / 1e9, r.stderr().strip());

            assertThat(r.exitCode()).as("stdout:%n%s%nstderr:%n%s", r.stdout(), r.stderr()).isEqualTo(ExitCodes.FAILED);
            assertThat(r.stderrLines()).as("logs: %s", cluster.logDir()).singleElement().asString()
                    .startsWith("allsum: validation failed in phase pairs: ")
                    .contains("rank " + VICTIM);
            assertThat(r.stdout()).contains("# phase 1: each rank alone").doesNotContain("# phase 2");
            passed = true;
        } finally {
            // Killed at once (the job is over, nothing to stop gracefully); the logs stay for a failed run.
            cluster.close(LocalCluster.Stop.quick().deletingLogs(passed));
        }
    }

    /** The phase 1 block is printed once every rank measured alone: the pair phase has begun. */
    private static void awaitSoloPhasePrinted(LauncherProcess.Started validate, LocalCluster cluster)
            throws Exception {
        Deadline deadline = Deadline.in(Duration.ofSeconds(180));
        while (!validate.stdoutSoFar().contains("# phase 1: each rank alone")) {
            if (!validate.process().isAlive()) {
                throw new AssertionError("allsum validate exited before the solo phase:\n"
                        + validate.await(1).stderr());
            }
            cluster.checkAlive();
            assertThat(deadline.passed()).as("the solo phase is printed in time").isFalse();
            Thread.sleep(25);
        }
    }

    /** The layout with the workers' collective deadline short (Spring's relaxed binding of the environment). */
    private static ProcessLayout withCollectiveDeadline(ProcessLayout layout) {
        return new ProcessLayout(layout.server(), withDeadline(layout.worker()), withDeadline(layout.plainWorker()),
                layout.ncclWorkerFlags(), layout.description());
    }

    private static ProcessLayout.Program withDeadline(ProcessLayout.Program program) {
        Map<String, String> env = new HashMap<>(program.env());
        env.put("ALLSUM_WORKER_COLLECTIVEDEADLINE", COLLECTIVE_DEADLINE.toSeconds() + "s");
        return new ProcessLayout.Program(program.jvm(), program.main(), program.aot(), env);
    }
}
