package io.allsum.model.validate;

import io.allsum.model.validate.RankValidation.PairMeasurement;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.PairSchedule.Pair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The one rule for a pair that both its ranks measured: its figure is the slower side's bandwidth and the higher
 * latency (a link is as good as its worse direction). The server's pair figures and the worker's choice of pairs to
 * measure again both come from here, so both judge the same pairs slow.
 */
public final class PairFigures {

    private PairFigures() {
    }

    /** Per measured pair, in pair order, its figure from {@code byRank}: each rank's own measurements, by rank. */
    public static SortedMap<Pair, PairFigure> of(Map<Integer, ? extends Collection<PairMeasurement>> byRank) {
        SortedMap<Pair, PairFigure> pairs = new TreeMap<>(Comparator.comparingInt(Pair::low)
                .thenComparingInt(Pair::high));
        byRank.forEach((rank, measured) -> measured.forEach(p -> pairs.merge(Pair.of(rank, p.peer()),
                new PairFigure(Math.min(rank, p.peer()), Math.max(rank, p.peer()), p.gbps(), p.latencyMicros(),
                        p.medianGBps(), p.worstGBps()),
                PairFigures::slower)));
        return pairs;
    }

    /**
     * Per measured pair its bandwidth, from {@code figures}: row r is rank r's GB/s to each peer, NaN where it did
     * not measure one (its own column included).
     */
    public static SortedMap<Pair, Double> bandwidths(double[][] figures) {
        Map<Integer, List<PairMeasurement>> byRank = new LinkedHashMap<>();
        for (int rank = 0; rank < figures.length; rank++) {
            List<PairMeasurement> row = new ArrayList<>();
            for (int peer = 0; peer < figures[rank].length; peer++) {
                if (peer != rank && !Double.isNaN(figures[rank][peer])) {
                    row.add(new PairMeasurement(peer, 0, figures[rank][peer], 0));
                }
            }
            byRank.put(rank, row);
        }
        return bandwidths(of(byRank));
    }

    /** Each pair's bandwidth alone, in the same order: what {@link SuspectFinder} judges. */
    public static SortedMap<Pair, Double> bandwidths(SortedMap<Pair, PairFigure> figures) {
        SortedMap<Pair, Double> gbps = new TreeMap<>(figures.comparator());
        figures.forEach((pair, figure) -> gbps.put(pair, figure.gbps()));
        return gbps;
    }

    /** The two sides of one pair as one figure: the lower bandwidths, the higher latency. */
    static PairFigure slower(PairFigure a, PairFigure b) {
        return new PairFigure(a.low(), a.high(), Math.min(a.gbps(), b.gbps()),
                Math.max(a.latencyMicros(), b.latencyMicros()), Math.min(a.medianGBps(), b.medianGBps()),
                Math.min(a.worstGBps(), b.worstGBps()));
    }
}
