package io.allsum.model.validate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Per rank, at how many of the all-together sweep's sizes it was the one the others waited for: its own time the
 * smallest (it arrived last, so it waited least), and at least {@code minShortfall} below the size's median time
 * (a closer call is noise). The one rule, for the server's figures and the worker's choice of what to confirm.
 */
public final class LastArrivals {

    private LastArrivals() {
    }

    /** @param rankTimesPerSize per size, each rank's own time (null or the wrong length: the size is skipped) */
    public static List<Integer> count(List<List<Double>> rankTimesPerSize, int worldSize, double minShortfall) {
        List<Integer> counts = new ArrayList<>(Collections.nCopies(worldSize, 0));
        for (List<Double> times : rankTimesPerSize) {
            if (times == null || times.size() != worldSize || worldSize < 3) {
                continue;
            }
            int fastest = 0;
            for (int r = 1; r < worldSize; r++) {
                if (times.get(r) < times.get(fastest)) {
                    fastest = r;
                }
            }
            if (RobustStats.of(times).shortfall(times.get(fastest)) >= minShortfall) {
                counts.set(fastest, counts.get(fastest) + 1);
            }
        }
        return counts;
    }
}
