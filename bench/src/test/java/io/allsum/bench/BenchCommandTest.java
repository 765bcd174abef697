package io.allsum.bench;

import io.allsum.launcher.ExitCodes;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

class BenchCommandTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        return BenchCommand.commandLine(new PrintStream(new ByteArrayOutputStream()), errStream).execute(args);
    }

    @Test
    void aBadBenchmarkOptionIsAllsumsOneLineAndExitTwo() {
        assertThat(run("bench-dispatch", "--ranks", "four")).isEqualTo(ExitCodes.USAGE);

        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("allsum: ").endsWith("(see allsum --help)\n")
                .hasLineCount(1);
    }

    @Test
    void aBenchmarksHelpGoesToTheGivenOutput() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int code = BenchCommand.commandLine(new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)).execute("bench-rendezvous", "--help");

        assertThat(code).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("bench-rendezvous").contains("--ranks");
    }
}
