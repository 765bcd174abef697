package io.allsum.bench.rendezvous;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The whole command against an in-test rendezvous over real HTTP: rounds complete, groups are deleted. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RendezvousBenchmarkRunTest {

    @Test
    void everyRankOfEveryRoundGetsTheViewAndTheTableHasARowPerWorldSize() throws Exception {
        try (FakeRendezvousServer server = new FakeRendezvousServer("t0k")) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            int code = new CommandLine(new RendezvousBenchmark()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err))
                    .execute("--server", server.uri().toString(), "--token", "t0k", "--ranks", "1,2,16",
                            "--rounds", "2", "--warmup", "0", "--backend", "nccl");

            assertThat(code).as(err.toString()).isZero();
            assertThat(server.viewsSent.get()).isEqualTo(2 * (1 + 2 + 16));
            assertThat(server.deletes.get()).isEqualTo(6);
            assertThat(server.activeGroups()).isZero();
            assertThat(out.toString().lines().filter(l -> l.matches("\\s+(1|2|16)\\s+2\\s+.*"))).hasSize(3);
        }
    }

    @Test
    void theFullViewRanksSpreadOverClientProcessesAndEveryClientModeAreMeasuredToo() throws Exception {
        for (List<String> variant : List.of(List.of("--view", "full"), List.of("--procs", "2"),
                List.of("--procs", "2", "--view", "full"), List.of("--clients", "per-rank"),
                List.of("--procs", "2", "--clients", "per-rank"), List.of("--clients", "allsum"),
                List.of("--procs", "2", "--clients", "allsum"))) {
            try (FakeRendezvousServer server = new FakeRendezvousServer("t0k")) {
                StringWriter out = new StringWriter();
                StringWriter err = new StringWriter();
                List<String> args = new ArrayList<>(List.of("--server", server.uri().toString(), "--token",
                        "t0k", "--ranks", "2,9", "--rounds", "2", "--warmup", "0", "--backend", "nccl"));
                args.addAll(variant);
                int code = new CommandLine(new RendezvousBenchmark()).setOut(new PrintWriter(out))
                        .setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));

                assertThat(code).as(variant + ": " + err).isZero();
                assertThat(server.viewsSent.get()).as(variant.toString()).isEqualTo(2 * (2 + 9));
                assertThat(out.toString().lines().filter(l -> l.matches("\\s+(2|9)\\s+2\\s+.*"))).hasSize(2);
            }
        }
    }

    @Test
    void freshClientProcessesJoinOnNewConnectionsEveryRoundWhileKeptOnesReuseTheirs() throws Exception {
        for (boolean fresh : new boolean[] {false, true}) {
            try (FakeRendezvousServer server = new FakeRendezvousServer("t0k")) {
                StringWriter err = new StringWriter();
                List<String> args = new ArrayList<>(List.of("--server", server.uri().toString(), "--token",
                        "t0k", "--ranks", "3", "--rounds", "2", "--warmup", "1", "--procs", "2", "--clients", "allsum",
                        "--child-java-option=-Xss1m"));
                if (fresh) {
                    args.add("--fresh");
                }
                int code = new CommandLine(new RendezvousBenchmark()).setOut(new PrintWriter(new StringWriter()))
                        .setErr(new PrintWriter(err)).execute(args.toArray(String[]::new));

                assertThat(code).as(err.toString()).isZero();
                assertThat(server.viewsSent.get()).isEqualTo(3 * 3);
                // Ranks 0 and 1 in two client processes, rank 2 here: 3 rounds of new processes, or the same 2.
                assertThat(server.joinConnections).as("fresh " + fresh).hasSize(fresh ? 3 * 2 + 1 : 2 + 1);
            }
        }
    }

    @Test
    void freshNeedsClientProcesses() {
        StringWriter err = new StringWriter();
        int code = new CommandLine(new RendezvousBenchmark()).setOut(new PrintWriter(new StringWriter()))
                .setErr(new PrintWriter(err)).execute("--server", "http://127.0.0.1:1", "--fresh");

        assertThat(code).isEqualTo(2);
        assertThat(err.toString()).contains("--fresh and --child-java-option need --procs");
    }

    @Test
    void aWrongTokenEndsTheRunWithANonZeroExit() throws Exception {
        try (FakeRendezvousServer server = new FakeRendezvousServer("right")) {
            StringWriter err = new StringWriter();
            int code = new CommandLine(new RendezvousBenchmark()).setOut(new PrintWriter(new StringWriter()))
                    .setErr(new PrintWriter(err))
                    .execute("--server", server.uri().toString(), "--token", "wrong", "--ranks", "4", "--rounds", "1",
                            "--warmup", "0");

            assertThat(code).isNotZero();
            assertThat(err.toString()).startsWith("bench-rendezvous: ").contains("401").hasLineCount(1);
        }
    }
}
