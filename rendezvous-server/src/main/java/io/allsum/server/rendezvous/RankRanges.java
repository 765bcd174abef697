package io.allsum.server.rendezvous;

import java.util.List;

/** Writes rank lists compactly for messages: [0-3, 7, 9-1023], cut short after a few ranges. */
final class RankRanges {

    private static final int MAX_RANGES = 16;

    private RankRanges() {
    }

    /** {@code ranks} must be sorted ascending. */
    static String describe(List<Integer> ranks) {
        StringBuilder out = new StringBuilder("[");
        int ranges = 0;
        int i = 0;
        while (i < ranks.size()) {
            int start = ranks.get(i);
            int end = start;
            while (i + 1 < ranks.size() && ranks.get(i + 1) == end + 1) {
                end = ranks.get(++i);
            }
            i++;
            if (ranges == MAX_RANGES) {
                out.append(", ... (").append(ranks.size()).append(" ranks in all)");
                break;
            }
            if (ranges > 0) {
                out.append(", ");
            }
            out.append(start);
            if (end != start) {
                out.append('-').append(end);
            }
            ranges++;
        }
        return out.append(']').toString();
    }
}
