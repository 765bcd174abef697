package io.allsum.launcher;

import io.allsum.model.Backend;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JobSessionTest {

    private final FakeClient client = new FakeClient();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Progress progress = new Progress(new PrintStream(err, true, StandardCharsets.UTF_8), false, false);

    private static GroupStatus status(GenerationState state, List<Integer> joined, List<Integer> missing) {
        return new GroupStatus("g", 1, state, 3, Backend.RING, joined, missing, List.of(), null, null);
    }

    private static Job withResults(JobState state, SizeResult... rows) {
        Job j = FakeClient.job(state);
        return new Job(j.jobId(), j.group(), j.seq(), j.generation(), j.spec(), state, null, null, null, null,
                List.of(0, 1, 2), null, List.of(rows));
    }

    @Test
    void awaitCompleteToleratesAMissingGroupWhileLocalWorkersStart() {
        client.statuses.add(() -> {
            throw FakeClient.notFound();
        });
        client.statuses.add(() -> status(GenerationState.JOINING, List.of(0), List.of(1, 2)));
        client.statuses.add(() -> status(GenerationState.COMPLETE, List.of(0, 1, 2), List.of()));

        GroupStatus done = new JobSession(client, "g", () -> { }, progress)
                .awaitComplete(Deadline.in(Duration.ofSeconds(30)), true);

        assertThat(done.state()).isEqualTo(GenerationState.COMPLETE);
    }

    @Test
    void awaitCompleteFailsAtOnceOnAMissingRemoteGroup() {
        client.statuses.add(() -> {
            throw FakeClient.notFound();
        });

        assertThatThrownBy(() -> new JobSession(client, "g", () -> { }, progress)
                .awaitComplete(Deadline.in(Duration.ofSeconds(30)), false))
                .isInstanceOf(LauncherException.class).hasMessageContaining("cannot read group 'g'")
                .hasMessageContaining("no group 'g'");
    }

    @Test
    void awaitCompleteNamesTheMissingRanksAtTheDeadline() {
        client.statuses.add(() -> status(GenerationState.JOINING, List.of(0), List.of(1, 2)));

        assertThatThrownBy(() -> new JobSession(client, "g", () -> { }, progress)
                .awaitComplete(Deadline.in(Duration.ofMillis(200)), true))
                .hasMessageContaining("missing ranks [1, 2]");
    }

    @Test
    void followPollsUntilTheJobIsFinalAndReportsEachStateChange() {
        // The server aggregates rows when the last rank reports: a running job has none, the final one has all.
        client.jobAnswers.add(withResults(JobState.RUNNING));
        client.jobAnswers.add(withResults(JobState.RUNNING));
        client.jobAnswers.add(withResults(JobState.SUCCEEDED, new SizeResult(8, 2, 10, 0, 0, 0),
                new SizeResult(16, 4, 11, 0, 0, 0)));

        Job done = new JobSession(client, "g", () -> { }, progress)
                .follow(FakeClient.job(JobState.QUEUED), Deadline.in(Duration.ofSeconds(30)));

        assertThat(done.state()).isEqualTo(JobState.SUCCEEDED);
        assertThat(done.results()).hasSize(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("job j-1 running", "job j-1 succeeded");
    }

    @Test
    void aLongJobWaitSaysWhatTheJobHasDone() {
        Progress noting = new Progress(new PrintStream(err, true, StandardCharsets.UTF_8), false, false,
                Duration.ofMillis(100));
        client.jobAnswers.add(FakeClient.job(JobState.RUNNING));

        assertThatThrownBy(() -> new JobSession(client, "g", () -> { }, noting)
                .follow(FakeClient.job(JobState.QUEUED), Deadline.in(Duration.ofMillis(450))));
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("waiting for job j-1 (running, 0 sizes measured, no rank finished yet), 0 s");
    }

    @Test
    void followCancelsTheJobWhenTheDeadlinePasses() {
        client.jobAnswers.add(FakeClient.job(JobState.RUNNING));

        assertThatThrownBy(() -> new JobSession(client, "g", () -> { }, progress)
                .follow(FakeClient.job(JobState.QUEUED), Deadline.in(Duration.ofMillis(300))))
                .hasMessageContaining("job j-1 did not finish in time");
        assertThat(client.cancelled).containsExactly("j-1");
    }

    @Test
    void followStopsAndCancelsWhenALocalRankDies() {
        client.jobAnswers.add(FakeClient.job(JobState.RUNNING));
        Runnable rankDied = () -> {
            throw new LauncherException("rank 2 (pid 7) exited with code 137");
        };

        assertThatThrownBy(() -> new JobSession(client, "g", rankDied, progress)
                .follow(FakeClient.job(JobState.RUNNING), Deadline.in(Duration.ofSeconds(30))))
                .hasMessage("rank 2 (pid 7) exited with code 137");
        assertThat(client.cancelled).containsExactly("j-1");
    }

    @Test
    void submitTurnsARefusalIntoOneLine() {
        FakeClient refusing = new FakeClient() {
            @Override
            public Job submitJob(String group, JobSpec spec) {
                throw new io.allsum.client.AllsumClientException(400, "Bad Request", "minBytes must be\npositive",
                        false, null);
            }
        };

        assertThatThrownBy(() -> new JobSession(refusing, "g", () -> { }, progress).submit(JobSpec.allSum(8)))
                .hasMessageContaining("the server refused the job").hasMessageNotContaining("\n");
    }

    @Test
    void awaitCompleteSaysEveryFewSecondsWhichRanksItWaitsFor() {
        Progress noting = new Progress(new PrintStream(err, true, StandardCharsets.UTF_8), false, false,
                Duration.ofMillis(100));
        client.statuses.add(() -> status(GenerationState.JOINING, List.of(0), List.of(1, 2)));

        assertThatThrownBy(() -> new JobSession(client, "g", () -> { }, noting)
                .awaitComplete(Deadline.in(Duration.ofMillis(450), "--wait-for-ranks 450 ms"), false))
                .hasMessage("group 'g' was not complete within --wait-for-ranks 450 ms; missing ranks [1, 2]");
        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("waiting for ranks [1, 2] of group 'g' (generation 1), 0 s");
    }
}
