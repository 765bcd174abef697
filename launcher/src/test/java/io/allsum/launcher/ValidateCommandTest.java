package io.allsum.launcher;

import io.allsum.model.jobs.JobSpec;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** Options of {@code allsum validate} that are wrong before anything starts (one line, exit 2), and its defaults. */
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
                "--token=TOKEN", "--timeout=DURATION");
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
    void moreCpuRanksThanFourPerCoreAreRefusedBeforeAnythingStarts() {
        int tooMany = AllsumCommand.MAX_RANKS_PER_CORE * Runtime.getRuntime().availableProcessors() + 1;
        Run r = run("validate", "--backend", "ring", "--ranks", Integer.toString(tooMany));
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString()
                .contains("--ranks " + tooMany + " is more than 4 CPU ranks per core");
    }

    @Test
    void everyAndRoundsAreCheckedBeforeAnythingStarts() {
        assertThat(run("validate", "--rounds", "3").err().lines()).singleElement().asString()
                .contains("--rounds: only with --every");
        assertThat(run("validate", "--every", "500ms").err()).contains("--every: at least 1 s, was 500 ms");
        assertThat(run("validate", "--every", "1m", "--rounds", "0").err()).contains("--rounds: at least 1, was 0");
        Run r = run("validate", "--every", "1m", "--save-baseline", "b.json");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().contains("--every: not with --save-baseline");
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
    void aStallShareOutsideZeroToOneIsRefused() {
        Run r = run("validate", "--ranks", "2", "--min-stall-share", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().lines()).singleElement().asString().contains("--min-stall-share: must be in (0, 1)");
    }

    @Test
    void baselineOptionsThatContradictEachOtherAreRefused() {
        assertThat(run("validate", "--baseline", "a.json", "--save-baseline", "b.json").err().lines())
                .singleElement().asString().contains("--baseline and --save-baseline: one at a time");
        assertThat(run("validate", "--baseline-runs", "3").err()).contains("--baseline-runs: only with --save-baseline");
        Run r = run("validate", "--save-baseline", "b.json", "--baseline-runs", "0");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).contains("--baseline-runs: must be 1..20, was 0");
    }

    @Test
    void aBaselineFileThatIsMissingOrNotABaselineIsOneLineAndExit2(@org.junit.jupiter.api.io.TempDir
                                                                   java.nio.file.Path dir) throws Exception {
        Run missing = run("validate", "--ranks", "2", "--baseline", dir.resolve("none.json").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err().lines()).singleElement().asString().contains("--baseline ")
                .contains("cannot read it");
        java.nio.file.Path other = java.nio.file.Files.writeString(dir.resolve("other.json"), "{\"verdict\": 1}");
        Run wrong = run("validate", "--ranks", "2", "--baseline", other.toString());
        assertThat(wrong.exit()).isEqualTo(2);
        assertThat(wrong.err().lines()).singleElement().asString().contains("not a baseline saved by --save-baseline");
        java.nio.file.Path badMargin = java.nio.file.Files.writeString(dir.resolve("margin.json"),
                "{\"worldSize\": 2, \"runs\": 3, \"figures\": [{\"name\": \"busbw/4096\", \"gbps\": 1.0, "
                        + "\"margin\": 2.0}]}");
        Run bounds = run("validate", "--ranks", "2", "--baseline", badMargin.toString());
        assertThat(bounds.exit()).isEqualTo(2);
        assertThat(bounds.err().lines()).singleElement().asString().contains("--baseline: figure busbw/4096");
    }

    @Test
    void anUnreachableServerIsOneLineAndExit1() {
        Run r = run("validate", "--server", "http://127.0.0.1:1", "--group", "g", "--timeout", "5", "-q");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err().lines()).singleElement().asString().contains("cannot reach the allsum server");
    }
}
