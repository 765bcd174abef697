package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class BaselineTest {

    /** 2 hosts x 2 ranks. */
    private static final List<RankPlace> PLACES = IntStream.range(0, 4)
            .mapToObj(r -> new RankPlace(r, "h" + r / 2, "cpu")).toList();

    private static Map<String, Double> run(double solo, double within, double across, double busbw) {
        Map<Pair, Double> pairs = new TreeMap<>(java.util.Comparator.comparingInt(Pair::low)
                .thenComparingInt(Pair::high));
        for (Pair p : PairSchedule.roundRobin(4).rounds().stream().flatMap(List::stream).toList()) {
            pairs.put(p, p.low() / 2 == p.high() / 2 ? within : across);
        }
        return Baseline.figuresOf(PLACES, Map.of(0, solo, 1, solo, 2, solo, 3, solo), pairs,
                Map.of(1024L, busbw / 100, 4L << 20, busbw));
    }

    @Test
    void aRunsFiguresAreNamedByKind() {
        assertThat(run(10, 5, 1, 2)).containsOnlyKeys("solo/cpu", "pairs/within-host", "pairs/across-hosts",
                "busbw/1024", "busbw/4194304").containsEntry("pairs/across-hosts", 1.0);
    }

    @Test
    void theMarginIsTwiceTheWorstShortfallOfTheHealthyRunsWithinItsBounds() {
        Baseline b = Baseline.calibrate(4, List.of(run(10, 5, 1, 2), run(9, 5, 1, 2), run(10, 5, 1, 2)), "now");
        Map<String, Baseline.Figure> byName = new TreeMap<>();
        b.figures().forEach(f -> byName.put(f.name(), f));
        assertThat(byName.get("solo/cpu").gbps()).isEqualTo(10);
        assertThat(byName.get("solo/cpu").margin()).isCloseTo(0.2, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(byName.get("pairs/across-hosts").margin()).isEqualTo(Baseline.MIN_MARGIN);
        assertThat(Baseline.calibrate(4, List.of(run(10, 5, 1, 2)), "now").figures())
                .allSatisfy(f -> assertThat(f.margin()).isEqualTo(Baseline.UNCALIBRATED_MARGIN));
    }

    @Test
    void aGroupSlowAllAlikeFallsShortOfItsBaselineAndAHealthyOneDoesNot() {
        Baseline b = Baseline.calibrate(4, List.of(run(10, 5, 1, 2), run(10, 5.2, 1.05, 2.1)), "now");
        assertThat(b.shortfalls(run(9.8, 5, 0.97, 2))).isEmpty();
        List<String> slow = b.shortfalls(run(10, 5, 0.3, 0.7));
        assertThat(slow).hasSize(3);
        assertThat(slow).anySatisfy(line -> assertThat(line).startsWith("pairs/across-hosts 0.300 GB/s, 71% below the baseline's 1.03 (margin 10%)"));
        List<Suspect> suspects = SuspectFinder.groupSuspects(null, 0, null, b, run(10, 5, 0.3, 0.7));
        assertThat(suspects).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.GROUP);
            assertThat(s.rank()).isEqualTo(-1);
            assertThat(s.reason()).contains("against the baseline: pairs/across-hosts").contains("busbw/4194304");
        });
    }

    @Test
    void aBaselineWithBadFiguresIsRefused() {
        assertThat(new Baseline(4, 1, "x", List.of(new Baseline.Figure("solo/cpu", 1, 0.2))).problem()).isNull();
        assertThat(new Baseline(4, 1, "x", List.of(new Baseline.Figure("solo/cpu", Double.NaN, 0.2))).problem())
                .contains("finite");
        assertThat(new Baseline(4, 1, "x", List.of(new Baseline.Figure("", 1, 0.2))).problem()).contains("name");
    }
}
