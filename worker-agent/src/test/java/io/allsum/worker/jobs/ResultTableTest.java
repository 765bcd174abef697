package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.model.jobs.RankSizeResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ResultTableTest {

    @Test
    void rowShowsNcclTestsColumnsWithAlgorithmAndBusBandwidth() {
        String row = ResultTable.row(CollectiveOp.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 4,
                new RankSizeResult(1 << 20, 1 << 18, 100.0, 0));

        // 1048576 B / 100 us = 10.49 GB/s; x 2(n-1)/n = 1.5 for 4 ranks.
        assertThat(row.trim().split("\\s+"))
                .containsExactly("1048576", "262144", "float", "sum", "-1", "100.0", "10.49", "15.73", "0");
    }

    @Test
    void opsWithoutReductionOrRootSayNoneAndMinusOne() {
        String gather = ResultTable.row(CollectiveOp.ALL_GATHER, DataType.BFLOAT16, ReduceOp.MAX, 2, 4,
                new RankSizeResult(4096, 512, 12.3456, -1));
        String broadcast = ResultTable.row(CollectiveOp.BROADCAST, DataType.INT8, ReduceOp.SUM, 2, 4,
                new RankSizeResult(4096, 4096, 12_345.6, 3));

        assertThat(gather.trim().split("\\s+")).startsWith("4096", "512", "bfloat16", "none", "-1", "12.35")
                .endsWith("N/A");
        assertThat(broadcast.trim().split("\\s+")).startsWith("4096", "4096", "int8", "none", "2", "12346")
                .endsWith("3");
    }

    @Test
    void tableEndsWithWrongTotalAndAverageBusBandwidth() {
        List<RankSizeResult> rows = List.of(new RankSizeResult(1000, 250, 1.0, 0), new RankSizeResult(2000, 500, 1.0, 2));

        String table = ResultTable.format(CollectiveOp.ALL_REDUCE, DataType.FLOAT32, ReduceOp.SUM, 0, 2, rows);

        assertThat(table.lines()).hasSize(6);
        assertThat(table.lines().findFirst().orElseThrow()).contains("size", "count", "type", "redop", "root",
                "time", "algbw", "busbw", "#wrong");
        assertThat(table).contains("# Wrong elements        : 2 FAILED").contains("# Avg bus bandwidth    : 1.5000");
        assertThat(ResultTable.averageBusBandwidthGBps(CollectiveOp.ALL_REDUCE, 2, rows)).isCloseTo(1.5, within(1e-12));
        assertThat(ResultTable.footer(CollectiveOp.ALL_REDUCE, 2, List.of(new RankSizeResult(8, 2, 1, 0))))
                .contains("0 OK");
        assertThat(ResultTable.footer(CollectiveOp.ALL_REDUCE, 2, List.of(new RankSizeResult(8, 2, 1, -1))))
                .contains("not checked");
    }

    @Test
    void zeroTimeGivesZeroBandwidthInsteadOfInfinity() {
        assertThat(ResultTable.algBandwidthGBps(0, 0)).isZero();
        assertThat(ResultTable.busBandwidthGBps(CollectiveOp.ALL_GATHER, 4, 1024, 0)).isZero();
    }
}
