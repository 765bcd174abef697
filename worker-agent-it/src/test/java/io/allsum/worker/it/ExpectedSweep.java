package io.allsum.worker.it;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;

import java.util.ArrayList;
import java.util.List;

/**
 * The rows a job must produce, computed here from first principles (nccl-tests' rules), not with the production
 * code: sizes of the sweep rounded down to whole elements (and to whole per-rank shares for all-gather and
 * reduce-scatter), sizes below one such unit and duplicates dropped; the count column; the bus-bandwidth factor.
 */
final class ExpectedSweep {

    private ExpectedSweep() {
    }

    record Row(long bytes, long count) {
    }

    static List<Row> rows(CollectiveOp op, DataType type, int worldSize, long minBytes, long maxBytes, int step) {
        boolean perRankShares = op == CollectiveOp.ALL_GATHER || op == CollectiveOp.REDUCE_SCATTER;
        long unit = (long) type.bytes() * (perRankShares ? worldSize : 1);
        List<Row> rows = new ArrayList<>();
        long first = minBytes;
        if (minBytes == 0) {
            // An explicit zero runs one empty size; the sweep goes on from one whole unit.
            rows.add(new Row(0, 0));
            first = unit;
        }
        for (long b = first; b <= maxBytes; b *= step) {
            long bytes = b - b % unit;
            long elements = bytes / type.bytes();
            Row row = new Row(bytes, perRankShares ? elements / worldSize : elements);
            // A size too small for one whole unit is skipped, as is a repeat of the previous one.
            if (bytes > 0 && (rows.isEmpty() || !rows.getLast().equals(row))) {
                rows.add(row);
            }
            if (step == 1) {
                break;
            }
        }
        return rows;
    }

    /** nccl-tests' factor from algorithm to bus bandwidth (PERFORMANCE.md there). */
    static double busFactor(CollectiveOp op, int n) {
        return switch (op) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER -> (n - 1) / (double) n;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }
}
