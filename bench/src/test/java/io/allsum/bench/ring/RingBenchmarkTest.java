package io.allsum.bench.ring;

import io.allsum.testing.CommandLineRun;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;

import static org.assertj.core.api.Assertions.assertThat;

class RingBenchmarkTest {

    private final CommandLineRun cli = new CommandLineRun(RingBenchmark::commandLine);

    @Test
    void aSizeThatIsNoSizeIsOneLineAndExitTwo() {
        assertThat(cli.run("--probe", "-b", "lots")).isEqualTo(2);

        assertThat(cli.err()).contains("'lots' is not a size").hasLineCount(1);
    }

    @Test
    void exactlyOneModeIsRequired() {
        assertThat(cli.run("--probe", "--launch", "2")).isEqualTo(2);
        assertThat(cli.run("-b", "8")).isEqualTo(2);

        assertThat(cli.err()).contains("give exactly one of --launch N, --rank R or --probe");
    }

    @Test
    void oneRankSweepPrintsVerifiedNcclTestsRows() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = probe.getLocalPort();
        }

        assertThat(cli.run("--rank", "0", "--world", "1", "--endpoints", "127.0.0.1:" + port, "-b", "1K", "-e", "4K",
                "-f", "4", "-n", "2")).isEqualTo(0);

        assertThat(cli.out())
                .contains("#       size         count      type   redop    root     time   algbw   busbw #wrong")
                .containsPattern("(?m)^ {8}1024 {11}256 {5}float {5}sum {6}-1 .* {6}0$")
                .containsPattern("(?m)^ {8}4096 {10}1024 {5}float ")
                .contains("# Out of bounds values : 0 OK");
    }
}
