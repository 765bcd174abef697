package io.allsum.server.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.problem.Violation;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class ResultAggregatorTest {

    private static RankReport report(int rank, RankSizeResult... results) {
        return new RankReport(rank, "i" + rank, 1L, true, null, List.of(results));
    }

    @Test
    void allReduceOfFourRanksTakesTheSlowestRankAndBusFactorOneAndAHalf() {
        long bytes = 1L << 20;
        List<RankReport> reports = List.of(
                report(0, new RankSizeResult(bytes, bytes / 4, 180.0, 0)),
                report(1, new RankSizeResult(bytes, bytes / 4, 200.0, 0)),
                report(2, new RankSizeResult(bytes, bytes / 4, 150.0, 0)),
                report(3, new RankSizeResult(bytes, bytes / 4, 199.5, 0)));

        List<SizeResult> rows = ResultAggregator.aggregate(CollectiveOp.ALL_REDUCE, 4, List.of(bytes), reports);

        assertThat(rows).hasSize(1);
        SizeResult row = rows.getFirst();
        assertThat(row.timeMicros()).isEqualTo(200.0);
        assertThat(row.count()).isEqualTo(bytes / 4);
        // 1048576 B in 200 us = 5.24288 GB/s; all-reduce busbw = algbw * 2 * 3 / 4.
        assertThat(row.algBandwidthGBps()).isCloseTo(5.24288, within(1e-9));
        assertThat(row.busBandwidthGBps()).isCloseTo(5.24288 * 1.5, within(1e-9));
        assertThat(row.wrongElements()).isZero();
        assertThat(row.rankTimesMicros()).containsExactly(180.0, 200.0, 150.0, 199.5);
    }

    @Test
    void wrongElementsAreSummedOverRanksPerSize() {
        List<RankReport> reports = List.of(
                report(0, new RankSizeResult(8, 2, 10, 1), new RankSizeResult(16, 4, 10, 0)),
                report(1, new RankSizeResult(8, 2, 10, 2), new RankSizeResult(16, 4, 10, 0)));

        List<SizeResult> rows = ResultAggregator.aggregate(CollectiveOp.ALL_REDUCE, 2, List.of(8L, 16L), reports);

        assertThat(rows).extracting(SizeResult::wrongElements).containsExactly(3L, 0L);
        assertThat(ResultAggregator.totalWrong(rows)).isEqualTo(3);
    }

    @Test
    void oneUnverifiedRankMakesTheRowUnverified() {
        List<RankReport> reports = List.of(
                report(0, new RankSizeResult(8, 2, 10, 0)),
                report(1, new RankSizeResult(8, 2, 10, -1)));

        List<SizeResult> rows = ResultAggregator.aggregate(CollectiveOp.ALL_REDUCE, 2, List.of(8L), reports);

        assertThat(rows.getFirst().wrongElements()).isEqualTo(-1);
        assertThat(ResultAggregator.totalWrong(rows)).isZero();
    }

    @Test
    void allGatherAndBroadcastUseTheirOwnBusFactors() {
        List<RankReport> two = List.of(report(0, new RankSizeResult(4000, 500, 1, 0)),
                report(1, new RankSizeResult(4000, 500, 1, 0)));

        SizeResult gather = ResultAggregator.aggregate(CollectiveOp.ALL_GATHER, 2, List.of(4000L), two).getFirst();
        SizeResult broadcast = ResultAggregator.aggregate(CollectiveOp.BROADCAST, 2, List.of(4000L), two).getFirst();

        assertThat(gather.algBandwidthGBps()).isCloseTo(4.0, within(1e-12));
        assertThat(gather.busBandwidthGBps()).isCloseTo(2.0, within(1e-12));
        assertThat(broadcast.busBandwidthGBps()).isCloseTo(4.0, within(1e-12));
    }

    @Test
    void zeroTimeGivesZeroBandwidthRatherThanInfinity() {
        assertThat(io.allsum.model.CollectiveOp.algBandwidthGBps(1024, 0)).isZero();
    }

    @Test
    void reportWithAMissingSizeIsRejectedNamingResults() {
        RankReport short1 = report(0, new RankSizeResult(8, 2, 10, 0));

        Violation missing = ResultAggregator.problemWith(short1, List.of(8L, 16L));
        assertThat(missing.field()).isEqualTo("results");
        assertThat(missing.message()).startsWith("rank 0 ");
        assertThat(ResultAggregator.problemWith(report(0, new RankSizeResult(9, 2, 10, 0)), List.of(8L)))
                .extracting(Violation::field).isEqualTo("results[0].bytes");
        assertThat(ResultAggregator.problemWith(report(0, new RankSizeResult(8, 2, Double.NaN, 0)), List.of(8L)))
                .extracting(Violation::field).isEqualTo("results[0].timeMicros");
        assertThat(ResultAggregator.problemWith(report(0, new RankSizeResult(8, 2, 1, 0)), List.of(8L))).isNull();
    }
}
