package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.ValidationResult.PairFigure;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The pair heatmap, the one rule for its cells (the CLI prints it, the dashboard colours it): one digit per pair, tenths
 * of the group's median pair figure (9 at 90% or more, 0 below 10%), '.' on the diagonal and '?' for a pair not
 * measured; a row per rank, so a slow rank or host shows as a line and a column of low digits.
 */
public final class PairMatrix {

    public static final char SAME_RANK = '.';
    public static final char NOT_MEASURED = '?';

    private PairMatrix() {
    }

    /** The median pair's GB/s, or null before any pair is measured. */
    public static Double medianGBps(List<PairFigure> pairs) {
        return pairs.isEmpty() ? null : RobustStats.of(pairs.stream().mapToDouble(PairFigure::gbps).toArray()).median();
    }

    /** One string of {@code ranks} cells per rank. */
    public static List<String> rows(int ranks, List<PairFigure> pairs) {
        Map<Pair, Double> byPair = new HashMap<>();
        pairs.forEach(p -> byPair.put(Pair.of(p.low(), p.high()), p.gbps()));
        Double median = medianGBps(pairs);
        List<String> rows = new ArrayList<>(ranks);
        for (int row = 0; row < ranks; row++) {
            StringBuilder cells = new StringBuilder(ranks);
            for (int col = 0; col < ranks; col++) {
                cells.append(cell(row, col, byPair, median == null ? 0 : median));
            }
            rows.add(cells.toString());
        }
        return rows;
    }

    /** The heatmap as comment lines under a header of column digits. */
    public static String render(int ranks, List<PairFigure> pairs) {
        Double median = medianGBps(pairs);
        int width = Integer.toString(ranks - 1).length();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "# pair bandwidth, tenths of the median (%.3g GB/s); 9 = 90%% or more%n",
                median == null ? 0 : median));
        out.append("#").append(" ".repeat(width + 1));
        for (int col = 0; col < ranks; col++) {
            out.append(col % 10);
        }
        out.append('\n');
        List<String> rows = rows(ranks, pairs);
        for (int row = 0; row < ranks; row++) {
            out.append(String.format(Locale.ROOT, "# %" + width + "d ", row)).append(rows.get(row)).append('\n');
        }
        return out.toString();
    }

    private static char cell(int row, int col, Map<Pair, Double> pairs, double median) {
        if (row == col) {
            return SAME_RANK;
        }
        Double value = pairs.get(Pair.of(row, col));
        if (value == null || median <= 0) {
            return NOT_MEASURED;
        }
        return (char) ('0' + (int) Math.max(0, Math.min(9, Math.floor(10 * value / median))));
    }
}
