package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;

import java.util.Locale;
import java.util.Map;

/**
 * The pair bandwidths as a compact text heatmap: one digit per pair, tenths of the group's median pair figure (9 at
 * 90% or more, 0 below 10%), '.' on the diagonal and '?' for a pair not measured; a row per rank, so a slow rank or
 * host shows as a line and a column of low digits.
 */
public final class PairMatrix {

    private PairMatrix() {
    }

    public static String render(int ranks, Map<Pair, Double> pairs) {
        double median = pairs.isEmpty() ? 0 : RobustStats.of(pairs.values()).median();
        int width = Integer.toString(ranks - 1).length();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "# pair bandwidth, tenths of the median (%.3g GB/s); 9 = 90%% or more%n",
                median));
        out.append("#").append(" ".repeat(width + 1));
        for (int col = 0; col < ranks; col++) {
            out.append(col % 10);
        }
        out.append('\n');
        for (int row = 0; row < ranks; row++) {
            out.append(String.format(Locale.ROOT, "# %" + width + "d ", row));
            for (int col = 0; col < ranks; col++) {
                out.append(cell(row, col, pairs, median));
            }
            out.append('\n');
        }
        return out.toString();
    }

    static char cell(int row, int col, Map<Pair, Double> pairs, double median) {
        if (row == col) {
            return '.';
        }
        Double value = pairs.get(Pair.of(row, col));
        if (value == null || median <= 0) {
            return '?';
        }
        return (char) ('0' + (int) Math.max(0, Math.min(9, Math.floor(10 * value / median))));
    }
}
