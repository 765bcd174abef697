package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class RankLogRowsTest {

    @TempDir
    Path dir;

    private static final String PREFIX = "2026-11-30T06:26:32.122Z  INFO 1 --- [allsum-worker] [job] "
            + "i.a.worker.agent.RunnerJobExecutor       : ";

    private void log(Path file, String line) throws IOException {
        Files.writeString(file, line, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }

    @Test
    void aRowAppearsOnceEveryRankLoggedItInSizeOrder() throws IOException {
        Path r0 = dir.resolve("worker-0.log");
        Path r1 = dir.resolve("worker-1.log");
        RankLogRows rows = new RankLogRows(List.of(r0, r1));
        log(r0, PREFIX + "Job j1 size 1/2: 8 B, 2 elements, 10.0 us, 0 wrong\n");
        log(r0, PREFIX + "Job j1 size 2/2: 16 B, 4 elements, 20.0 us, 0 wrong\n");

        assertThat(rows.poll("j1", CollectiveOp.ALL_REDUCE, 0)).as("rank 1 has not measured yet").isEmpty();

        log(r1, PREFIX + "Job j1 size 1/2: 8 B, 2 elements, 30.0 us, 1 wrong\n");
        List<SizeResult> first = rows.poll("j1", CollectiveOp.ALL_REDUCE, 0);

        assertThat(first).hasSize(1);
        SizeResult row = first.getFirst();
        assertThat(row.bytes()).isEqualTo(8);
        assertThat(row.count()).isEqualTo(2);
        assertThat(row.rankTimesMicros()).containsExactly(10.0, 30.0);
        assertThat(row.timeMicros()).isEqualTo(30.0);
        assertThat(row.wrongElements()).isEqualTo(1);
        // all-reduce on 2 ranks: busbw = algbw x 2(n-1)/n = algbw.
        assertThat(row.busBandwidthGBps()).isCloseTo(8 / 30.0 / 1e3, within(1e-12));
    }

    @Test
    void aLineCutInTheMiddleIsReadWhenItsEndArrivesAndOtherJobsAreIgnored() throws IOException {
        Path r0 = dir.resolve("worker-0.log");
        RankLogRows rows = new RankLogRows(List.of(r0));
        log(r0, PREFIX + "Job other size 1/1: 8 B, 2 elements, 1.0 us, 0 wrong\n");
        log(r0, PREFIX + "Job j2 size 1/1: 64 B, 16 elem");

        assertThat(rows.poll("j2", CollectiveOp.ALL_REDUCE, 0)).isEmpty();

        log(r0, "ents, 2.5E1 us, -1 wrong\n");

        assertThat(rows.poll("j2", CollectiveOp.ALL_REDUCE, 0)).singleElement()
                .satisfies(r -> {
                    assertThat(r.timeMicros()).isEqualTo(25.0);
                    assertThat(r.wrongElements()).as("not verified").isEqualTo(-1);
                });
    }
}
