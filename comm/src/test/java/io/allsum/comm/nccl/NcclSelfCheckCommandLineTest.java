package io.allsum.comm.nccl;

import io.allsum.testing.CommandLineRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

import static org.assertj.core.api.Assertions.assertThat;

/** The self check's command line (bench/h200/run.sh drives it); runs everywhere: bad input never reaches a GPU. */
class NcclSelfCheckCommandLineTest {

    private final CommandLineRun cli = new CommandLineRun(NcclSelfCheck::commandLine);

    private static NcclSelfCheck parsed(String... args) {
        CommandLine parsed = NcclSelfCheck.commandLine();
        parsed.parseArgs(args);
        return parsed.getCommand();
    }

    @ParameterizedTest(name = "{2}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "-b 8x | '8x' | a size that is no size",
            "-e 9000000000T | too large | a size too large for a long",
            "-b 0 | 1 <= -b <= -e | a zero start size, which would sweep forever",
            "--rank 1 --nranks 2 | --nranks > 1 needs --id-file | several ranks without an id file",
            "--rank 2 --nranks 2 --id-file /tmp/x | --rank 2 is outside [0, --nranks 2) | a rank outside the world",
            "-G -1 | -G >= 0 | negative graph launches",
            "--bogus | --bogus | an unknown option"})
    void badInputIsOneLineAndExitTwo(String args, String error, String what) {
        assertThat(cli.run(args.split(" "))).isEqualTo(2);
        assertThat(cli.err()).startsWith("allsum-selfcheck: ").contains(error).hasLineCount(1);
    }

    @Test
    void helpListsTheHarnessOptions() {
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("-b=BYTES", "-e=BYTES", "-G=LAUNCHES", "--rank=R", "--nranks=N",
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
        NcclSelfCheck command = parsed("-b", "64K", "-e", "1G");
        assertThat(command.minBytes).isEqualTo(64L << 10);
        assertThat(command.maxBytes).isEqualTo(1L << 30);
    }

    @Test
    void defaultSizesAreEightBytesToOneGibibyte() {
        NcclSelfCheck command = parsed();
        assertThat(command.minBytes).isEqualTo(8);
        assertThat(command.maxBytes).isEqualTo(1L << 30);
    }
}
