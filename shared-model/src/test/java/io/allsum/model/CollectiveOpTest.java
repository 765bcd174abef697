package io.allsum.model;

import io.allsum.model.jobs.SizeResult;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class CollectiveOpTest {

    @Test
    void gatherAndScatterCountEachRanksShareOfTheWholeBuffer() {
        // 100 B of int32 on 3 ranks: 25 elements, 8 per rank, 96 B in all.
        assertThat(CollectiveOp.ALL_GATHER.shape(4, 100, 3)).isEqualTo(new CollectiveOp.Shape(96, 8, 8, 24));
        assertThat(CollectiveOp.REDUCE_SCATTER.shape(4, 100, 3)).isEqualTo(new CollectiveOp.Shape(96, 8, 24, 8));
        assertThat(CollectiveOp.ALL_REDUCE.shape(4, 100, 3)).isEqualTo(new CollectiveOp.Shape(100, 25, 25, 25));
        assertThat(CollectiveOp.ALL_GATHER.granuleElements(3)).isEqualTo(3);
        assertThat(CollectiveOp.BROADCAST.granuleElements(3)).isEqualTo(1);
    }

    @Test
    void everyOpStatesTheFactsOfNcclTests() {
        assertThat(EnumSet.allOf(CollectiveOp.class).stream().filter(CollectiveOp::reduces))
                .containsExactlyInAnyOrder(CollectiveOp.ALL_REDUCE, CollectiveOp.REDUCE_SCATTER, CollectiveOp.REDUCE);
        assertThat(EnumSet.allOf(CollectiveOp.class).stream().filter(CollectiveOp::rooted))
                .containsExactlyInAnyOrder(CollectiveOp.BROADCAST, CollectiveOp.REDUCE);
        assertThat(EnumSet.allOf(CollectiveOp.class).stream().filter(op -> !op.runsInPlace()))
                .containsExactly(CollectiveOp.SEND_RECV);
        // PERFORMANCE.md there, n = 4: all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n, the rest 1.
        assertThat(EnumSet.allOf(CollectiveOp.class).stream().map(op -> op.busBandwidthFactor(4)))
                .containsExactly(1.5, 0.75, 0.75, 1.0, 1.0, 1.0);
        assertThat(CollectiveOp.SEND_RECV.shape(4, 100, 3)).isEqualTo(new CollectiveOp.Shape(100, 25, 25, 25));
        assertThat(CollectiveOp.REDUCE_SCATTER.granuleElements(3)).isEqualTo(3);
        assertThat(CollectiveOp.REDUCE.granuleElements(3)).isEqualTo(1);
    }

    @Test
    void buffersAreOneInPlaceAndTwoOutOfPlaceExceptForSendRecv() {
        assertThat(CollectiveOp.ALL_GATHER.bufferBytes(4, 96, 3, false)).isEqualTo(32 + 96);
        assertThat(CollectiveOp.ALL_GATHER.bufferBytes(4, 96, 3, true)).isEqualTo(96);
        assertThat(CollectiveOp.SEND_RECV.bufferBytes(4, 96, 3, true)).isEqualTo(2 * 96);
        assertThat(CollectiveOp.ALL_REDUCE.bufferBytes(4, 0, 2, false)).isEqualTo(8);
    }

    @Test
    void bandwidthsFollowNcclTests() {
        SizeResult row = SizeResult.measured(CollectiveOp.ALL_REDUCE, 4, 8_000_000, 2_000_000, 1000, 0,
                List.of(900.0, 1000.0, 950.0, 800.0));

        assertThat(row.algBandwidthGBps()).isCloseTo(8.0, within(1e-12));
        assertThat(row.busBandwidthGBps()).isCloseTo(12.0, within(1e-12));
        SizeResult fastest = row.withTime(CollectiveOp.ALL_REDUCE, 4, 800);
        assertThat(fastest.algBandwidthGBps()).isCloseTo(10.0, within(1e-12));
        assertThat(fastest.rankTimesMicros()).isEqualTo(row.rankTimesMicros());
        assertThat(CollectiveOp.algBandwidthGBps(1024, 0)).isZero();
    }
}
