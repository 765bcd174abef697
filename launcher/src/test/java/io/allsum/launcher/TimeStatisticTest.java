package io.allsum.launcher;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

class TimeStatisticTest {

    /** 1 MiB on 4 ranks that took 100, 200, 300 and 400 us; the server's time is the slowest. */
    private static final SizeResult ROW = new SizeResult(1 << 20, 1 << 18, 400, 2.62, 3.93, 0,
            List.of(100.0, 200.0, 300.0, 400.0));

    @Test
    void theDefaultLikeNcclTestsIsTheAverageOverRanks() {
        SizeResult avg = TimeStatistic.fromCode(1).apply(ROW, CollectiveOp.ALL_REDUCE, 4);

        assertThat(avg.timeMicros()).isEqualTo(250.0);
        assertThat(avg.algBandwidthGBps()).isCloseTo((1 << 20) / 250.0 / 1e3, within(1e-9));
        assertThat(avg.busBandwidthGBps()).isCloseTo(avg.algBandwidthGBps() * 1.5, within(1e-9));
    }

    @Test
    void codesZeroToThreePickRankZeroMinAndMaxAsNcclTestsDoes() {
        assertThat(TimeStatistic.fromCode(0).apply(ROW, CollectiveOp.ALL_REDUCE, 4).timeMicros()).isEqualTo(100.0);
        assertThat(TimeStatistic.fromCode(2).apply(ROW, CollectiveOp.ALL_REDUCE, 4).timeMicros()).isEqualTo(100.0);
        assertThat(TimeStatistic.fromCode(3).apply(ROW, CollectiveOp.ALL_REDUCE, 4).timeMicros()).isEqualTo(400.0);
    }

    @Test
    void rowsWithoutPerRankTimesKeepTheServersTime() {
        SizeResult old = new SizeResult(8, 2, 12.5, 0.00064, 0.00096, 0);

        assertThat(TimeStatistic.AVG.apply(old, CollectiveOp.ALL_REDUCE, 4)).isEqualTo(old);
    }

    @Test
    void codesOutsideZeroToThreeAreRefused() {
        assertThatThrownBy(() -> TimeStatistic.fromCode(4)).hasMessageContaining("-a/--average");
    }
}
