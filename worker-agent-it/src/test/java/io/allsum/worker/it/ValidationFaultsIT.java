package io.allsum.worker.it;

import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.validate.Suspect;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;

import java.time.Duration;
import java.util.Locale;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A rank that dies (SIGKILL) or stalls (SIGSTOP) in the pair phase of a validation, on a real 4-rank ring group:
 * the job ends FAILED within the collective deadline, naming the rank, with {@code validation.phase} "pairs";
 * afterwards the group re-forms and a plain all-sum succeeds. docs/validate.md ("Faults") quotes the times printed.
 */
@Isolated("it measures speed: another cluster on the same cores would be its fault")
class ValidationFaultsIT {

    static final String GROUP = "validate-faults-4";
    static final int WORLD_SIZE = 4;
    static final Duration COLLECTIVE_DEADLINE = Duration.ofSeconds(10);
    /** Past the deadline: the report's way to the server and a poll, on a busy 2-core machine. */
    static final Duration MARGIN = Duration.ofSeconds(10);
    static final Duration DEADLINE = Duration.ofSeconds(120);
    /**
     * 4 MiB pairs, 500 exchanges: a round takes a second or more, so the fault, once the first round arrived, lands
     * inside the two rounds left of the pair phase; the test waits for that first round.
     */
    static final JobSpec LONG_PAIRS = JobSpec.builder().sizes(1024L, 4096L).stepFactor(4).iterations(2, 1)
            .validation(new ValidationSpec(1L << 20, 4L << 20, 500, null, null, null)).build();
    static final JobSpec SMALL = JobSpec.builder().sizes(4L, 4096L).stepFactor(4).iterations(2, 1).timeoutSeconds(60)
            .build();

    @AutoClose
    static ItCluster cluster;
    /** The log-name suffix of the next restarted worker. */
    static int incarnation = 1;

    @BeforeAll
    static void startGroup() throws Exception {
        cluster = ItCluster.start("validation-faults", null, ItCluster.workerTiming(
                "--allsum.worker.collective-deadline=" + COLLECTIVE_DEADLINE.toSeconds() + "s"));
        cluster.startGroup(GROUP, WORLD_SIZE);
    }

    @Test
    void aRankKilledInThePairPhaseFailsTheValidationNamingItAndTheGroupReforms() throws Exception {
        int victim = 2;
        GroupStatus before = cluster.awaitGroupReady(GROUP, DEADLINE);
        Job running = startValidationAndAwaitAPairRound();
        long killedAt = System.nanoTime();
        cluster.worker(GROUP, victim).process().kill();

        Job failed = awaitFailedInPairs(running, victim, killedAt, "SIGKILL");
        assertThat(failed.validation().verdict()).isEqualTo(ValidationResult.FAILED);

        cluster.restartWorker(GROUP, victim, WORLD_SIZE, ++incarnation);
        assertReformsAndRunsAPlainJob(before, killedAt, failed);
    }

    @Test
    void aRankStoppedInThePairPhaseFailsTheValidationNamingItAndRejoinsWhenContinued() throws Exception {
        int victim = 1;
        GroupStatus before = cluster.awaitGroupReady(GROUP, DEADLINE);
        Job running = startValidationAndAwaitAPairRound();
        JvmProcess stalled = cluster.worker(GROUP, victim).process();
        long stoppedAt = System.nanoTime();
        stalled.signal("STOP");
        Job failed;
        try {
            failed = awaitFailedInPairs(running, victim, stoppedAt, "SIGSTOP");
        } finally {
            stalled.signal("CONT");
        }
        // silent past the heartbeat timeout: the verdict names it, it is not only a failed job
        assertThat(failed.validation().verdict()).isEqualTo(ValidationResult.SUSPECTS);
        assertThat(failed.validation().suspects()).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.UNRESPONSIVE);
            assertThat(s.rank()).isEqualTo(victim);
        });
        assertReformsAndRunsAPlainJob(before, stoppedAt, failed);
    }

    /** Submits the validation and waits until every rank measured alone and the first pair round arrived. */
    private static Job startValidationAndAwaitAPairRound() throws InterruptedException {
        Job submitted = cluster.client().submitJob(GROUP, LONG_PAIRS);
        Job inPairs = cluster.awaitJob(GROUP, submitted.jobId(), j -> j.state().isFinal() || j.validation() != null
                && j.validation().solo().size() == WORLD_SIZE && !j.validation().pairs().isEmpty(), DEADLINE);
        assertThat(inPairs.state()).as("still running: %s", inPairs.failureReason()).isEqualTo(JobState.RUNNING);
        assertThat(inPairs.validation().phase()).isEqualTo(ValidationResult.PAIRS);
        return inPairs;
    }

    /** The job ends FAILED within the collective deadline (and a margin), naming the victim and the pair phase. */
    private static Job awaitFailedInPairs(Job running, int victim, long faultAt, String fault)
            throws InterruptedException {
        Job failed = cluster.awaitJob(GROUP, running.jobId(), j -> j.state().isFinal(),
                COLLECTIVE_DEADLINE.plus(MARGIN));
        double seconds = (System.nanoTime() - faultAt) / 1e9;
        System.out.printf(Locale.ROOT, "[validation faults] %s of rank %d in the pair phase: %s %.2f s after it: %s%n",
                fault, victim, failed.state(), seconds, failed.failureReason());
        assertThat(failed.state()).isEqualTo(JobState.FAILED);
        assertThat(failed.failureReason()).contains("rank " + victim);
        assertThat(failed.validation().phase()).isEqualTo(ValidationResult.PAIRS);
        return failed;
    }

    private static void assertReformsAndRunsAPlainJob(GroupStatus before, long faultAt, Job failed)
            throws InterruptedException {
        GroupStatus reformed = cluster.awaitGroupReady(GROUP, DEADLINE);
        System.out.printf(Locale.ROOT, "[validation faults] group complete again (generation %d) %.1f s after the "
                + "fault%n", reformed.generation(), (System.nanoTime() - faultAt) / 1e9);
        assertThat(reformed.generation()).isGreaterThan(failed.generation());
        assertThat(reformed.generation()).isGreaterThan(before.generation());
        Job after = cluster.client().submitJob(GROUP, SMALL);
        Job done = cluster.awaitJob(GROUP, after.jobId(), j -> j.state().isFinal(), DEADLINE);
        assertThat(done.state()).as(done.failureReason()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.results()).isNotEmpty().allSatisfy(r -> assertThat(r.wrongElements()).isZero());
    }
}
