package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
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

/** Rows go out as the job shows them, once each, under the chosen statistic; the footer covers the rows measured. */
class LiveTableTest {

    private final StringWriter printed = new StringWriter();
    private final LiveTable table = new LiveTable(new PrintWriter(printed),
            new Progress(new PrintStream(OutputStream.nullOutputStream()), false, true), "ring", 2,
            List.of(new ResultTable.RankLine(0, 1L, "box", null, null)), TimeStatistic.RANK0);

    private static final SizeResult EIGHT = SizeResult.measured(CollectiveOp.ALL_REDUCE, 2, 8, 2, 20, 0, List.of(10.0, 20.0));
    private static final SizeResult SIXTEEN = SizeResult.measured(CollectiveOp.ALL_REDUCE, 2, 16, 4, 40, 0, List.of(30.0, 40.0));

    private static Job job(JobState state, SizeResult... rows) {
        return new Job("j-1", "g", 1, 1L, JobSpec.allSum(16), state, null, null, null, null, List.of(), null,
                List.of(rows));
    }

    private List<String> rows() {
        return printed.toString().lines().filter(l -> !l.startsWith("#")).toList();
    }

    @Test
    void eachRowIsPrintedOnceAsItAppearsThenTheFooter() {
        table.show(job(JobState.RUNNING));
        assertThat(printed.toString()).as("no row yet, no header").isEmpty();

        table.show(job(JobState.RUNNING, EIGHT));
        table.show(job(JobState.RUNNING, EIGHT));
        String afterFirst = printed.toString();
        table.finish(job(JobState.SUCCEEDED, EIGHT, SIXTEEN));

        assertThat(afterFirst).contains("# allsum ").doesNotContain("# Avg bus bandwidth");
        assertThat(rows()).hasSize(2);
        assertThat(rows().getFirst()).as("rank 0's time (-a 0)").isEqualTo(ResultTable.row(JobSpec.allSum(16),
                TimeStatistic.RANK0.apply(EIGHT, CollectiveOp.ALL_REDUCE, 2)));
        assertThat(rows().getFirst()).isNotEqualTo(ResultTable.row(JobSpec.allSum(16), EIGHT));
        assertThat(printed.toString().lines().filter(l -> l.startsWith("# allsum "))).hasSize(1);
        assertThat(printed.toString()).contains("# Out of bounds values : 0 OK", "# Avg bus bandwidth");
    }

    @Test
    void failedJobKeepsTheRowsMeasuredAndTheFooterCoversThem() {
        table.show(job(JobState.RUNNING, EIGHT));
        table.finish(job(JobState.FAILED, EIGHT));

        assertThat(rows()).hasSize(1);
        assertThat(printed.toString()).endsWith(ResultTable.footer(
                job(JobState.FAILED, TimeStatistic.RANK0.apply(EIGHT, CollectiveOp.ALL_REDUCE, 2))));
        assertThat(printed.toString()).contains("# Avg bus bandwidth");
    }

    @Test
    void jobThatFailedBeforeAnyRowPrintsNothing() {
        table.finish(job(JobState.FAILED));

        assertThat(printed.toString()).isEmpty();
    }
}
