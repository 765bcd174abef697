package io.allsum.model.validate;

import io.allsum.model.validate.RankValidation.PairMeasurement;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PairFiguresTest {

    @Test
    void aPairMeasuredFromBothSidesCountsItsSlowerBandwidthAndItsHigherLatency() {
        Map<Integer, List<PairMeasurement>> byRank = Map.of(
                0, List.of(new PairMeasurement(1, 8, 5.0, 10), new PairMeasurement(2, 8, 1.0, 40)),
                1, List.of(new PairMeasurement(0, 8, 3.0, 20)),
                2, List.of(new PairMeasurement(0, 8, 2.0, 30)));

        assertThat(PairFigures.of(byRank)).containsExactly(
                Map.entry(Pair.of(0, 1), new PairFigure(0, 1, 3.0, 20)),
                Map.entry(Pair.of(0, 2), new PairFigure(0, 2, 1.0, 40)));
    }

    @Test
    void aPairMeasuredFromOneSideCountsThatSideAndAnUnmeasuredPairIsAbsent() {
        Map<Integer, List<PairMeasurement>> byRank = Map.of(
                3, List.of(new PairMeasurement(1, 8, 4.0, 7)),
                0, List.of());

        assertThat(PairFigures.of(byRank)).containsExactly(Map.entry(Pair.of(1, 3), new PairFigure(1, 3, 4.0, 7)));
    }

    @Test
    void theMatrixFormFollowsTheSameRuleNaNBeingNoMeasurement() {
        double nan = Double.NaN;
        double[][] figures = {
                {nan, 5.0, 1.0, nan},
                {3.0, nan, nan, nan},
                {2.0, nan, nan, 6.0},
                {nan, nan, nan, nan}};

        assertThat(PairFigures.bandwidths(figures)).containsExactly(
                Map.entry(Pair.of(0, 1), 3.0), Map.entry(Pair.of(0, 2), 1.0), Map.entry(Pair.of(2, 3), 6.0));
    }

    @Test
    void theMatrixAndTheMeasurementsGiveTheSameBandwidths() {
        Map<Integer, List<PairMeasurement>> byRank = Map.of(
                0, List.of(new PairMeasurement(1, 8, 5.0, 10), new PairMeasurement(2, 8, 0.5, 1)),
                1, List.of(new PairMeasurement(0, 8, 3.0, 20), new PairMeasurement(2, 8, 9.0, 1)),
                2, List.of(new PairMeasurement(0, 8, 2.0, 30)));
        double[][] figures = new double[3][3];
        for (double[] row : figures) {
            java.util.Arrays.fill(row, Double.NaN);
        }
        byRank.forEach((rank, row) -> row.forEach(p -> figures[rank][p.peer()] = p.gbps()));

        assertThat(PairFigures.bandwidths(figures)).isEqualTo(PairFigures.bandwidths(PairFigures.of(byRank)))
                .containsEntry(Pair.of(0, 2), 0.5).containsEntry(Pair.of(1, 2), 9.0);
    }
}
