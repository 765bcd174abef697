package io.allsum.server.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.problem.Violation;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Folds the ranks' reports into one row per size ({@link SizeResult#measured}): the slowest rank's time with each
 * rank's own time alongside, and the wrong elements summed over ranks (-1, "not verified", as soon as one rank did
 * not verify).
 */
final class ResultAggregator {

    private ResultAggregator() {
    }

    /**
     * Checks that one rank's successful final report has exactly one result per size of the sweep, in order, with
     * sane numbers; returns the first broken rule (the message names the rank), or null when the report is usable.
     */
    static Violation problemWith(RankReport report, List<Long> sizes) {
        List<RankSizeResult> results = report.results();
        if (results == null || results.size() != sizes.size()) {
            return new Violation("results", "rank " + report.rank() + " expected one entry per size of the sweep "
                    + sizes + ", got " + (results == null ? "none" : results.size()));
        }
        return problemWithPrefix(report, sizes);
    }

    /**
     * As {@link #problemWith}, for what a rank measured so far (a partial report, or a failed rank's): the first
     * sizes of the sweep, possibly none (null results).
     */
    static Violation problemWithPrefix(RankReport report, List<Long> sizes) {
        List<RankSizeResult> results = report.results() == null ? List.of() : report.results();
        String rank = "rank " + report.rank() + " ";
        if (results.size() > sizes.size()) {
            return new Violation("results", rank + "expected at most one entry per size of the sweep " + sizes
                    + ", got " + results.size());
        }
        for (int i = 0; i < results.size(); i++) {
            RankSizeResult r = results.get(i);
            if (r == null || r.bytes() != sizes.get(i)) {
                return new Violation("results[" + i + "].bytes", rank + "expected " + sizes.get(i)
                        + ", got " + (r == null ? "null" : r.bytes()));
            }
            if (!Double.isFinite(r.timeMicros()) || r.timeMicros() < 0) {
                return new Violation("results[" + i + "].timeMicros", rank
                        + "must be a finite time >= 0, got " + r.timeMicros());
            }
            if (r.wrongElements() < -1) {
                return new Violation("results[" + i + "].wrongElements", rank
                        + "must be >= 0, or -1 when not verified, got " + r.wrongElements());
            }
            if (r.count() < 0) {
                return new Violation("results[" + i + "].count", rank + "must be >= 0, got " + r.count());
            }
        }
        return null;
    }

    /**
     * One row per size; {@code reports} are the successful, checked reports of the {@code worldSize} ranks that ran
     * the sweep (not those the job left out), lowest rank first.
     */
    static List<SizeResult> aggregate(CollectiveOp op, int worldSize, List<Long> sizes, Collection<RankReport> reports) {
        List<List<RankSizeResult>> byRank = reports.stream().map(RankReport::results).toList();
        List<SizeResult> rows = new ArrayList<>(sizes.size());
        for (int i = 0; i < sizes.size(); i++) {
            rows.add(row(op, worldSize, i, sizes.get(i), byRank));
        }
        return rows;
    }

    /** Row {@code index} (of {@code bytes}) over {@code byRank}: each rank's results, lowest rank first, all this long. */
    static SizeResult row(CollectiveOp op, int worldSize, int index, long bytes, List<List<RankSizeResult>> byRank) {
        double slowest = 0;
        long count = -1;
        long wrong = 0;
        boolean verified = true;
        List<Double> rankTimes = new ArrayList<>(byRank.size());
        for (List<RankSizeResult> results : byRank) {
            RankSizeResult r = results.get(index);
            slowest = Math.max(slowest, r.timeMicros());
            rankTimes.add(r.timeMicros());
            if (count < 0) {
                count = r.count();
            }
            if (r.wrongElements() < 0) {
                verified = false;
            } else {
                wrong += r.wrongElements();
            }
        }
        return SizeResult.measured(op, worldSize, bytes, Math.max(count, 0), slowest, verified ? wrong : -1,
                rankTimes);
    }

    /** The wrong elements over every size (ignoring unverified ones). */
    static long totalWrong(List<SizeResult> rows) {
        return rows.stream().mapToLong(SizeResult::wrongElements).filter(w -> w > 0).sum();
    }
}
