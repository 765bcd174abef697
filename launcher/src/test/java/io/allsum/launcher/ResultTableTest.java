package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.Job;
import io.allsum.model.jobs.JobSpec;
import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class ResultTableTest {

    private static final JobSpec ALL_SUM = JobSpec.builder().sizes(8L, 1024L).timeoutSeconds(60).build();

    private static Job job(JobSpec spec, List<SizeResult> results) {
        return new Job("j-1", "local", 1, 1L, spec, JobState.SUCCEEDED, null, null, null, 120.0, List.of(0, 1, 2),
                null, results);
    }

    @Test
    void rowUsesNcclTestsColumnWidths() {
        String row = ResultTable.row(ALL_SUM, new SizeResult(8, 2, 35.37, 0.000226, 0.0003, 0));

        assertThat(row).isEqualTo("           8             2     float     sum      -1    35.37    0.00    0.00      0");
    }

    @Test
    void nonReducingOpsShowNoneAndRootedOpsShowTheRoot() {
        JobSpec gather = JobSpec.builder().collective(CollectiveOp.ALL_GATHER, DataType.INT32, ReduceOp.SUM).size(8L)
                .iterations(1, 0).timeoutSeconds(60).build();
        JobSpec bcast = JobSpec.builder().collective(CollectiveOp.BROADCAST, DataType.FLOAT64, ReduceOp.SUM).root(2)
                .size(8L).iterations(1, 0).timeoutSeconds(60).build();

        assertThat(ResultTable.row(gather, new SizeResult(12, 3, 1, 0, 0, 0))).contains("   int32    none      -1");
        assertThat(ResultTable.row(bcast, new SizeResult(8, 1, 1, 0, 0, 0))).contains("  double    none       2");
    }

    @Test
    void unverifiedRowsShowNotApplicable() {
        assertThat(ResultTable.row(ALL_SUM, new SizeResult(8, 2, 1, 0, 0, -1))).endsWith("  N/A");
    }

    @Test
    void tableHasHeaderARowPerSizeAndFooter() {
        List<SizeResult> rows = List.of(new SizeResult(8, 2, 10, 0.0008, 0.0011, 0),
                new SizeResult(16, 4, 10, 0.0016, 0.0021, 0), new SizeResult(1024, 256, 20, 0.0512, 0.0683, 0));

        StringWriter printed = new StringWriter();
        new LiveTable(new PrintWriter(printed), new Progress(new PrintStream(OutputStream.nullOutputStream()), false,
                true), "ring", 3, List.of(new ResultTable.RankLine(0, 42L, "box", null, "127.0.0.1:5000"),
                new ResultTable.RankLine(1, 43L, "box", "NVIDIA H200", null)), TimeStatistic.MAX)
                .finish(job(ALL_SUM, rows));
        String table = printed.toString();

        assertThat(table).contains("minBytes 8 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 validation: 1",
                "#  Rank  0 Group  0 Pid     42 on        box device cpu [127.0.0.1:5000]",
                "#  Rank  1 Group  0 Pid     43 on        box device NVIDIA H200",
                "out-of-place",
                "#       size         count      type   redop    root     time   algbw   busbw #wrong",
                "# Out of bounds values : 0 OK",
                "# Avg bus bandwidth    : 0.0238");
        assertThat(table.lines().filter(l -> !l.startsWith("#"))).hasSize(3);
    }

    @Test
    void footerSaysFailedAndCountsWrongElements() {
        Job bad = job(ALL_SUM, List.of(new SizeResult(8, 2, 10, 0, 0, 2), new SizeResult(16, 4, 10, 0, 0, 3)));

        assertThat(ResultTable.footer(bad)).contains("# Out of bounds values : 5 FAILED");
        assertThat(ResultTable.totalWrongElements(bad)).isEqualTo(5);
    }
}
