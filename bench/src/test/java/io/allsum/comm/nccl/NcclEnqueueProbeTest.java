package io.allsum.comm.nccl;

import io.allsum.testing.CommandLineRun;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The probe's command line; bad input never reaches a GPU. */
class NcclEnqueueProbeTest {

    private final CommandLineRun cli = new CommandLineRun(NcclEnqueueProbe::commandLine);

    @Test
    void helpListsTheRankAndProbeOptions() {
        assertThat(cli.run("--help")).isZero();
        assertThat(cli.out()).contains("-d=DEVICE", "--rank=R", "--nranks=N", "--id-file=PATH",
                "--timeout=SECONDS", "--rounds=N", "--calls=N");
    }

    @Test
    void severalRanksNeedAnIdFile() {
        assertThat(cli.run("--rank", "1", "--nranks", "2")).isEqualTo(2);
        assertThat(cli.err()).startsWith("nccl-enqueue-probe: ").contains("--nranks > 1 needs --id-file")
                .hasLineCount(1);
    }

    @Test
    void noRoundsIsRefused() {
        assertThat(cli.run("--rounds", "0")).isEqualTo(2);
        assertThat(cli.err()).contains("need --rounds >= 1 and --calls >= 1").hasLineCount(1);
    }

    @Test
    void withoutNcclItIsOneLineAndExitOne() {
        String reason;
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            reason = factory.unavailableReason();
        }
        assumeFalse(reason.isEmpty(), "this host has a GPU and libnccl.so.2");

        assertThat(cli.run("--timeout", "5")).isEqualTo(1);
        assertThat(cli.err()).startsWith("nccl-enqueue-probe: NCCL backend unavailable: ").hasLineCount(1);
        assertThat(cli.out()).isEmpty();
    }
}
