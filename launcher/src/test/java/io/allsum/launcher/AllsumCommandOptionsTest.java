package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.JobSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class AllsumCommandOptionsTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private AllsumCommand parse(String... args) {
        CommandLine cl = AllsumCommand.commandLine(new PrintStream(out), new PrintStream(err));
        cl.parseArgs(args);
        AllsumCommand command = cl.getCommand();
        command.validate();
        return command;
    }

    private int run(String... args) {
        return AllsumCommand.execute(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void defaultsAreNcclTestsDefaults() {
        JobSpec spec = parse().jobSpec();

        assertThat(spec).isEqualTo(JobSpec.builder().sizes(8L, 64L << 20).timeoutSeconds(600).build());
        assertThat(spec.withDefaults()).isEqualTo(spec);
    }

    @Test
    void ncclTestsLettersFillTheJobSpec() {
        JobSpec spec = parse("-b", "1K", "-e", "1M", "-f", "4", "-n", "7", "-w", "0", "-c", "0", "-d", "half",
                "-o", "max", "--collective", "all-gather", "--in-place", "--timeout", "30").jobSpec();

        assertThat(spec).isEqualTo(JobSpec.builder().collective(CollectiveOp.ALL_GATHER, DataType.FLOAT16, ReduceOp.MAX)
                .sizes(1024L, 1L << 20).stepFactor(4).iterations(7, 0).inPlace(true).verify(false).timeoutSeconds(30)
                .build());
    }

    @Test
    void longOptionNamesWorkLikeTheLetters() {
        JobSpec spec = parse("--minbytes", "16", "--maxbytes", "2K", "--stepfactor", "8", "--iters", "3",
                "--warmup_iters", "1", "--check", "1", "--datatype", "bfloat16", "--op", "prod").jobSpec();

        assertThat(spec.minBytes()).isEqualTo(16);
        assertThat(spec.maxBytes()).isEqualTo(2048);
        assertThat(spec.stepFactor()).isEqualTo(8);
        assertThat(spec.iterations()).isEqualTo(3);
        assertThat(spec.warmupIterations()).isEqualTo(1);
        assertThat(spec.dtype()).isEqualTo(DataType.BFLOAT16);
        assertThat(spec.redop()).isEqualTo(ReduceOp.PROD);
    }

    @ParameterizedTest
    @CsvSource({"float, FLOAT32", "float32, FLOAT32", "fp32, FLOAT32", "half, FLOAT16", "float16, FLOAT16",
            "bf16, BFLOAT16", "double, FLOAT64", "int32, INT32", "int, INT32", "uint8, UINT8", "f8e4m3, FLOAT8_E4M3"})
    void acceptsNcclTestsAndAllsumTypeNames(String name, DataType expected) {
        assertThat(parse("-d", name).dataType).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"all_reduce, ALL_REDUCE", "all_reduce_perf, ALL_REDUCE", "reduce-scatter, REDUCE_SCATTER",
            "sendrecv, SEND_RECV", "BROADCAST, BROADCAST", "all_gather_perf, ALL_GATHER"})
    void acceptsCollectiveSpellings(String name, CollectiveOp expected) {
        assertThat(parse("--collective", name).collective).isEqualTo(expected);
    }

    @Test
    void unknownOptionExitsWithUsageAndOneLine() {
        int code = run("--bogus");

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).hasSize(1).first().asString()
                .startsWith("allsum: ").contains("--bogus");
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"-b 1M -e 1K", "-b -1", "-n 0", "-w -1", "-c 2", "-d float128", "-o median",
            "-b 12Q", "--ranks 0", "--server http://localhost:1", "--server http://localhost:1 --group g --ranks 2",
            "--group bad/name", "--timeout 0", "--backend gloo", "--ranks 2 -r 2", "-f 0",
            "--server http://localhost:1 --group g --process-per-rank"})
    void invalidOptionsExitWithUsageAndOneLine(String args) {
        int code = run(args.split(" "));

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).hasSize(1).first().asString().startsWith("allsum: ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-d half -o max --collective all_gather", "-o avg --collective broadcast",
            "-e 65G", "-b 8 -e 8 --collective all_gather", "--collective all_reduce -r 1", "-n 1000001"})
    void whatTheServerWouldRefuseIsRefusedBeforeAnythingStarts(String args) {
        long before = System.nanoTime();
        int code = run(("--backend ring --ranks 4 " + args).split(" "));

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        // One line: no "starting the server" progress line came before it.
        assertThat(stderr().lines().toList()).hasSize(1).first().asString().startsWith("allsum: ")
                .endsWith("(see allsum --help)");
        assertThat(System.nanoTime() - before).as("refused at once, no JVM started").isLessThan(10_000_000_000L);
    }

    @Test
    void aReductionOnAGatherNamesTheOptionAndTheRule() {
        run("--backend", "ring", "-d", "half", "-o", "max", "--collective", "all_gather");

        assertThat(stderr().strip()).isEqualTo("allsum: -o/--op: is only meaningful for [all_reduce, reduce_scatter, "
                + "reduce], not for all_gather (see allsum --help)");
    }

    @Test
    void sizesAboveTheServersLimitNameTheLimit() {
        run("--backend", "ring", "-e", "65G");

        assertThat(stderr()).contains("-e/--maxbytes: 69793218560 bytes is above the limit of 68719476736");
    }

    @Test
    void zeroRanksSaysOnlyThatRanksMustBePositive() {
        run("--ranks", "0");

        assertThat(stderr().strip()).isEqualTo("allsum: --ranks must be at least 1 (see allsum --help)");
    }

    @Test
    void averageTakesNcclTestsCodesAndDefaultsToTheMeanOverRanks() {
        assertThat(parse().statistic()).isEqualTo(TimeStatistic.AVG);
        assertThat(parse("-a", "0").statistic()).isEqualTo(TimeStatistic.RANK0);
        assertThat(parse("-a", "3").statistic()).isEqualTo(TimeStatistic.MAX);
        assertThat(run("-a", "4")).isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void theBenchmarksAreNoSubcommandsOfTheProductsCommand() {
        assertThat(run("bench-rendezvous", "--ranks", "16")).isEqualTo(ExitCodes.USAGE);

        assertThat(stderr()).contains("Unmatched argument").hasLineCount(1);
    }

    @Test
    void jobTimeoutIsCappedAtWhatTheServerAccepts() {
        assertThat(parse("--timeout", "7200").jobSpec().timeoutSeconds()).isEqualTo(3600);
    }

    @Test
    void usageErrorNamesTheOffendingOptions() {
        run("-b", "1M", "-e", "1K");

        // The server's rule (JobSpecRules), named by the option that sets the field.
        assertThat(stderr().strip()).isEqualTo("allsum: -e/--maxbytes: must be at least minBytes (1048576), was 1024"
                + " (see allsum --help)");
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("-b, --minbytes", "--backend", "Exit codes");
    }

    @Test
    void aTypoOfAnOptionSuggestsTheNearestOne() {
        int code = run("--rank", "3");

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).hasSize(1).first().asString()
                .startsWith("allsum: ").contains("--rank").contains("did you mean --ranks");
    }

    @Test
    void aStepFactorOfOneIsRefusedUnlessTheSweepIsOneSize() {
        assertThat(run("-f", "1")).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).hasSize(1).first().asString().contains("-f/--stepfactor 1",
                "-i/--stepbytes");
        assertThat(parse("-f", "1", "-b", "1K", "-e", "1K").jobSpec().stepFactor()).isEqualTo(1);
    }

    @Test
    void stepBytesStepsLinearlyAsNcclTestsDashIWithoutDashF() {
        JobSpec spec = parse("-b", "1K", "-e", "4K", "-i", "1K").jobSpec();

        assertThat(spec.stepBytes()).isEqualTo(1024L);
        assertThat(spec.stepFactor()).isEqualTo(1);
        assertThat(spec.sizes(4)).containsExactly(1024L, 2048L, 3072L, 4096L);
        assertThat(parse("--stepbytes", "512", "-f", "1", "-b", "1K", "-e", "2K").jobSpec().sizes(4))
                .containsExactly(1024L, 1536L, 2048L);
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("-i, --stepbytes=SIZE");
    }

    @Test
    void stepBytesWithAStepFactorAboveOneIsOneLineNamingTheOption() {
        int code = run("--backend", "ring", "-i", "1K", "-f", "2");

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).singleElement().asString().isEqualTo("allsum: -i/--stepbytes: is a "
                + "linear step, for a stepFactor of 1 (or none), but stepFactor is 2: give one of the two "
                + "(see allsum --help)");
    }

    @ParameterizedTest
    @ValueSource(strings = {"-i 0", "-b 8 -e 1M -i 8", "-i 1M -f 4", "-i -1"})
    void wrongStepBytesExitWithUsageAndOneLine(String args) {
        int code = run(("--backend ring --ranks 2 " + args).split(" "));

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).singleElement().asString().startsWith("allsum: ");
    }

    @Test
    void aStepBytesThatIsNoWholeElementIsWarnedAbout() {
        assertThat(AllsumCommand.sizeWarnings(parse("-b", "8", "-e", "32", "-i", "6").jobSpec(), 4))
                .containsExactly("-i/--stepbytes 6 is no multiple of 4 B: each size is rounded down (sizes are whole "
                        + "float32 elements (4 B))");
        assertThat(AllsumCommand.sizeWarnings(parse("-b", "8", "-e", "32", "-i", "2").jobSpec(), 4)).singleElement()
                .asString().endsWith(", a repeated size runs once");
        assertThat(AllsumCommand.sizeWarnings(parse("-b", "8", "-e", "32", "-i", "8").jobSpec(), 4)).isEmpty();
    }

    @Test
    void sizesRoundedToWholeElementsAreWarnedAbout() {
        assertThat(AllsumCommand.sizeWarnings(parse("-b", "5", "-e", "1K").jobSpec(), 4))
                .containsExactly("-b/--minbytes 5 runs as 4 B: sizes are whole float32 elements (4 B)");
        assertThat(AllsumCommand.sizeWarnings(parse("-b", "8", "-e", "1001", "--collective", "all_gather").jobSpec(), 3))
                .containsExactly("-b/--minbytes 8 runs as 12 B: sizes are multiples of 12 B (one float32 element per rank)",
                        "-e/--maxbytes 1001 is rounded down (sizes are multiples of 12 B (one float32 element per rank));"
                                + " the largest size is 504 B");
        assertThat(AllsumCommand.sizeWarnings(parse().jobSpec(), 4)).isEmpty();
    }

    @Test
    void cpuRanksBeyondTheCoresAreWarnedAboutAndFarBeyondRefused() {
        AllsumCommand command = parse();
        var plan = new AllsumCommand.LocalPlan(io.allsum.model.Backend.RING, 3, java.util.List.of());

        assertThat(command.coresWarning(plan, 2)).startsWith("--ranks 3 on 2 CPU cores: ranks share cores");
        assertThat(command.coresWarning(plan, 4)).isNull();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> command.coresWarning(
                        new AllsumCommand.LocalPlan(io.allsum.model.Backend.RING, 9, java.util.List.of()), 2))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("--ranks 9 is more than 4 CPU ranks per core on 2 cores; use --ranks 8 or fewer");
    }

    @Test
    void farTooManyCpuRanksAreOneLineAndExitTwoBeforeAnythingStarts() {
        int code = run("--backend", "ring", "--ranks", "100000", "-q");

        assertThat(code).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr().lines().toList()).hasSize(1).first().asString()
                .startsWith("allsum: --ranks 100000 is more than 4 CPU ranks per core");
    }

    @Test
    void waitForRanksTakesADuration() {
        assertThat(parse("--wait-for-ranks", "30").waitForRanks).isEqualTo(java.time.Duration.ofSeconds(30));
        assertThat(parse("--wait-for-ranks", "2m").waitForRanks).isEqualTo(java.time.Duration.ofMinutes(2));
        assertThat(parse("--wait-for-ranks", "500ms").waitForRanks).isEqualTo(java.time.Duration.ofMillis(500));
        assertThat(parse("--wait-for-ranks", "PT5S").waitForRanks).isEqualTo(java.time.Duration.ofSeconds(5));
        assertThat(run("--wait-for-ranks", "soon")).isEqualTo(ExitCodes.USAGE);
        assertThat(stderr()).contains("'soon' is not a duration");
        assertThat(DurationConverter.describe(java.time.Duration.ofSeconds(90))).isEqualTo("90 s");
        assertThat(DurationConverter.describe(java.time.Duration.ofMinutes(2))).isEqualTo("2 min");
    }

    @Test
    void aLongErrorIsCutToOneShortLineNamingWhereTheFullTextIs() {
        String cut = parse("--json", "run.json").shorten("rank 3 missed heartbeats; ".repeat(70), null);

        assertThat(cut).hasSizeLessThan(AllsumCommand.MAX_ERROR_CHARS + 40).startsWith("rank 3 missed heartbeats")
                .endsWith("... (full text in run.json)");
        assertThat(parse().shorten("short", null)).isEqualTo("short");
    }
}
