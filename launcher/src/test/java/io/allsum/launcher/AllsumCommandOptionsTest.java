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

        assertThat(spec).isEqualTo(new JobSpec(CollectiveOp.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 8L,
                64L << 20, 2, 20, 5, false, true, 600));
        assertThat(spec.withDefaults()).isEqualTo(spec);
    }

    @Test
    void ncclTestsLettersFillTheJobSpec() {
        JobSpec spec = parse("-b", "1K", "-e", "1M", "-f", "4", "-n", "7", "-w", "0", "-c", "0", "-d", "half",
                "-o", "max", "--collective", "all-gather", "--in-place", "--timeout", "30").jobSpec();

        assertThat(spec).isEqualTo(new JobSpec(CollectiveOp.ALL_GATHER, DataType.FLOAT16, ReduceOp.MAX, 0, 1024L,
                1L << 20, 4, 7, 0, true, false, 30));
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
            "--group bad/name", "--timeout 0", "--backend gloo", "--ranks 2 -r 2", "-f 0"})
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

        assertThat(stderr()).contains("-e/--maxbytes (1024) is below -b/--minbytes (1048576)");
    }

    @Test
    void helpPrintsUsageAndExitsZero() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("-b, --minbytes", "--backend", "Exit codes");
    }
}
