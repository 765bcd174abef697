package io.allsum.launcher;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GenerationState;
import io.allsum.model.rendezvous.GroupStatus;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** How a run's end becomes its outcome: the exit code, the error line, the failure, and what it got to. */
class ClusterRunTest {

    private static ClusterRun run(URI server) {
        ClusterOptions target = new ClusterOptions();
        target.remote = new ServerOptions();
        target.remote.server = server;
        return new ClusterRun(new CommandLine(new AllsumCommand()), target,
                new Progress(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8), false, true));
    }

    @Test
    void aRunThatEndsNormallyHasItsExitCodeAndNoError() {
        ClusterRun.Outcome outcome = run(null).execute(() -> ExitCodes.FAILED);

        assertThat(outcome.exitCode()).isEqualTo(ExitCodes.FAILED);
        assertThat(outcome.error()).isNull();
        assertThat(outcome.exitOrThrow()).isEqualTo(ExitCodes.FAILED);
        assertThat(outcome.mode()).isEqualTo("local");
        assertThat(outcome.worldSize()).as("neither planned nor seen").isNull();
        assertThat(outcome.backend()).isNull();
    }

    @Test
    void eachFailureHasItsExitCodeAndItsMessageOnOneLine() {
        CommandLine command = new CommandLine(new AllsumCommand());
        ClusterRun run = run(URI.create("http://127.0.0.1:1"));

        ClusterRun.Outcome usage = run.execute(() -> {
            throw new CommandLine.ParameterException(command, "-b/--minbytes: must not\nbe negative");
        });
        assertThat(usage.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(usage.error()).isEqualTo("-b/--minbytes: must not; be negative");
        assertThat(usage.mode()).isEqualTo("remote");
        assertThatThrownBy(usage::exitOrThrow).isSameAs(usage.failure());

        ClusterRun.Outcome timedOut = run.execute(() -> {
            throw new LauncherException(ExitCodes.TIMED_OUT, "--timeout passed", null);
        });
        assertThat(timedOut).extracting(ClusterRun.Outcome::exitCode, ClusterRun.Outcome::error)
                .containsExactly(ExitCodes.TIMED_OUT, "--timeout passed");

        ClusterRun.Outcome broken = run.execute(() -> {
            throw new IllegalStateException("no rows");
        });
        assertThat(broken).extracting(ClusterRun.Outcome::exitCode, ClusterRun.Outcome::error)
                .containsExactly(ExitCodes.FAILED, "IllegalStateException: no rows");
        assertThatThrownBy(broken::exitOrThrow).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void theOutcomeKeepsWhatTheRunSawWhateverTheEnd() {
        ClusterRun run = run(null);
        GroupStatus group = new GroupStatus("g", 3, GenerationState.COMPLETE, 2, Backend.RING, List.of(0, 1), List.of(),
                List.of(), null, null);

        ClusterRun.Outcome outcome = run.execute(() -> {
            run.saw(group);
            run.phase("groupComplete");
            run.note("excluded", Map.of("skipped", "healthy"));
            throw new LauncherException("job 1 FAILED");
        });

        assertThat(outcome.group()).isSameAs(group);
        assertThat(outcome.worldSize()).isEqualTo(2);
        assertThat(outcome.backend()).isEqualTo(String.valueOf(Backend.RING));
        assertThat(outcome.phases()).containsOnlyKeys("groupComplete");
        assertThat(outcome.notes()).containsEntry("excluded", Map.of("skipped", "healthy"));
        assertThat(outcome.job()).isNull();
    }
}
