package io.allsum.worker.comm.nccl;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

/** The self check's command line (bench/h200/run.sh drives it); runs everywhere: bad input never reaches a GPU. */
class NcclSelfCheckCommandLineTest {

    private final StringWriter err = new StringWriter();
    private final StringWriter out = new StringWriter();

    private int run(String... args) {
        CommandLine cli = NcclSelfCheck.commandLine();
        cli.setErr(new PrintWriter(err, true));
        cli.setOut(new PrintWriter(out, true));
        return cli.execute(args);
    }

    @Test
    void badSizeIsOneLineAndExitTwo() {
        assertThat(run("-b", "8x")).isEqualTo(2);
        assertThat(err.toString()).startsWith("allsum-selfcheck: ").contains("'8x'").hasLineCount(1);
    }

    @Test
    void severalRanksNeedAnIdFile() {
        assertThat(run("--rank", "1", "--nranks", "2")).isEqualTo(2);
        assertThat(err.toString()).contains("--nranks > 1 needs --id-file").hasLineCount(1);
    }

    @Test
    void rankOutsideTheWorldIsRefused() {
        assertThat(run("--rank", "2", "--nranks", "2", "--id-file", "/tmp/x")).isEqualTo(2);
        assertThat(err.toString()).contains("--rank 2 is outside [0, --nranks 2)");
    }

    @Test
    void negativeGraphLaunchesAreRefused() {
        assertThat(run("-G", "-1")).isEqualTo(2);
        assertThat(err.toString()).contains("-G >= 0");
    }

    @Test
    void aZeroStartSizeIsRefusedRatherThanSweepingForever() {
        assertThat(run("-b", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("1 <= -b <= -e").hasLineCount(1);
    }

    @Test
    void unknownOptionIsRefused() {
        assertThat(run("--bogus")).isEqualTo(2);
        assertThat(err.toString()).contains("--bogus").hasLineCount(1);
    }

    @Test
    void helpListsTheHarnessOptions() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("-b=BYTES", "-e=BYTES", "-G=LAUNCHES", "--rank=R", "--nranks=N",
                "--id-file=PATH", "--abort-test", "--no-check", "--timeout=SECONDS")
                .doesNotContain("--probe");
    }

    @Test
    void sizesTakeNcclTestsSuffixes() {
        NcclSelfCheck.Size size = new NcclSelfCheck.Size();
        assertThat(size.convert("8")).isEqualTo(8);
        assertThat(size.convert("1K")).isEqualTo(1L << 10);
        assertThat(size.convert("16m")).isEqualTo(16L << 20);
        assertThat(size.convert("1G")).isEqualTo(1L << 30);
    }

    @Test
    void sizeOptionsAreParsedOntoTheCommand() {
        CommandLine cli = NcclSelfCheck.commandLine();
        cli.parseArgs("-b", "64K", "-e", "1G");
        NcclSelfCheck command = cli.getCommand();
        assertThat(command.minBytes).isEqualTo(64L << 10);
        assertThat(command.maxBytes).isEqualTo(1L << 30);
    }

    @Test
    void defaultSizesAreEightBytesToOneGibibyte() {
        CommandLine cli = NcclSelfCheck.commandLine();
        cli.parseArgs();
        NcclSelfCheck command = cli.getCommand();
        assertThat(command.minBytes).isEqualTo(8);
        assertThat(command.maxBytes).isEqualTo(1L << 30);
    }

    @Test
    void tooLargeSizeIsOneLineAndExitTwo() {
        assertThat(run("-e", "9000000000T")).isEqualTo(2);
        assertThat(err.toString()).startsWith("allsum-selfcheck: ").contains("too large").hasLineCount(1);
    }
}
