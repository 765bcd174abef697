package io.allsum.worker.comm.nccl;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/** The probe's command line; bad input never reaches a GPU. */
class NcclEnqueueProbeTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cli = NcclEnqueueProbe.commandLine();
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        return cli.execute(args);
    }

    @Test
    void helpListsTheRankAndProbeOptions() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString()).contains("-d=DEVICE", "--rank=R", "--nranks=N", "--id-file=PATH",
                "--timeout=SECONDS", "--rounds=N", "--calls=N");
    }

    @Test
    void severalRanksNeedAnIdFile() {
        assertThat(run("--rank", "1", "--nranks", "2")).isEqualTo(2);
        assertThat(err.toString()).startsWith("nccl-enqueue-probe: ").contains("--nranks > 1 needs --id-file")
                .hasLineCount(1);
    }

    @Test
    void noRoundsIsRefused() {
        assertThat(run("--rounds", "0")).isEqualTo(2);
        assertThat(err.toString()).contains("need --rounds >= 1 and --calls >= 1").hasLineCount(1);
    }

    @Test
    void withoutNcclItIsOneLineAndExitOne() {
        String reason;
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            reason = factory.unavailableReason();
        }
        assumeFalse(reason.isEmpty(), "this host has a GPU and libnccl.so.2");

        assertThat(run("--timeout", "5")).isEqualTo(1);
        assertThat(err.toString()).startsWith("nccl-enqueue-probe: NCCL backend unavailable: ").hasLineCount(1);
        assertThat(out.toString()).isEmpty();
    }
}
