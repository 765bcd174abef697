package io.allsum.launcher;

import io.allsum.model.jobs.JobSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Options of {@code allsum validate} that are wrong before anything starts: one line, exit 2. */
class ValidateCommandTest {

    private record Run(int exit, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = AllsumCommand.execute(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theSweepOptionsSharedWithAllsumTakeValidatesOwnDefaults() {
        CommandLine cl = AllsumCommand.commandLine(System.out, System.err);
        cl.parseArgs("validate");
        JobSpec spec = cl.getSubcommands().get("validate").<ValidateCommand>getCommand().jobSpec();

        assertThat(spec).extracting(JobSpec::minBytes, JobSpec::maxBytes, JobSpec::stepFactor, JobSpec::iterations,
                JobSpec::warmupIterations, JobSpec::timeoutSeconds).containsExactly(1024L, 4L << 20, 4, 10, 2, 600);
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        assertThat(AllsumCommand.execute(new String[]{"validate", "--help"},
                new PrintStream(help, true, StandardCharsets.UTF_8), System.err)).isZero();
        assertThat(help.toString(StandardCharsets.UTF_8)).contains("(default 1K)", "(default 4M)",
                "--token=TOKEN", "--timeout=SECONDS");
    }

    @Test
    void stepBytesMakesValidatesSweepLinear() {
        CommandLine cl = AllsumCommand.commandLine(System.out, System.err);
        cl.parseArgs("validate", "-i", "1M");
        JobSpec spec = cl.getSubcommands().get("validate").<ValidateCommand>getCommand().jobSpec();

        assertThat(spec.stepBytes()).isEqualTo(1L << 20);
        assertThat(spec.stepFactor()).isEqualTo(1);
        assertThat(spec.sizes(2)).containsExactly(1024L, (1L << 20) + 1024, (2L << 20) + 1024, (3L << 20) + 1024);

        Run r = run("validate", "--ranks", "2", "-i", "1M", "-f", "4");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().startsWith("allsum: -i/--stepbytes: is a linear step");
    }

    @Test
    void aServerWithoutAGroupIsRefused() {
        Run r = run("validate", "--server", "http://127.0.0.1:1");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().contains("--server needs --group");
    }

    @Test
    void aPairBufferTheServerWouldRefuseNamesTheOption() {
        Run r = run("validate", "--ranks", "2", "--pair-bytes", "2");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().contains("--pair-bytes: must be 4..");
    }

    @Test
    void aShortfallOfOneOrMoreIsRefused() {
        Run r = run("validate", "--ranks", "2", "--min-shortfall", "1.5");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().contains("--min-shortfall");
    }

    @Test
    void anUnreachableServerIsOneLineAndExit1() {
        Run r = run("validate", "--server", "http://127.0.0.1:1", "--group", "g", "--timeout", "5", "-q");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().lines()).singleElement().asString().contains("cannot reach the allsum server");
    }
}
