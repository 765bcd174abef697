package io.allsum.server.jobs;

import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankValidation;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.jobs.ValidationResult;
import io.allsum.model.jobs.ValidationResult.PairFigure;
import io.allsum.model.jobs.ValidationResult.SoloFigure;
import io.allsum.model.jobs.ValidationSpec;
import io.allsum.model.problem.Violation;
import io.allsum.model.validate.PairFigures;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.RobustStats;
import io.allsum.model.validate.Suspect;
import io.allsum.model.validate.SuspectFinder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A validation job's figures across ranks ({@link ValidationResult}) from each rank's latest figures, partial or
 * final: per pair the slower of its two sides ({@link PairFigures}); per sweep size the rank the others waited for (the smallest own
 * time, when it lies at least {@code minShortfall} below the sizes' median time); once the job succeeded, the
 * suspects ({@link SuspectFinder}) and the verdict.
 */
final class ValidationAggregator {

    private ValidationAggregator() {
    }

    /** The first problem with a report's validation figures (the message names the rank), or null. */
    static Violation problemWith(RankReport report, int worldSize) {
        RankValidation v = report.validation();
        if (v == null) {
            return null;
        }
        String rank = "rank " + report.rank() + " ";
        if (v.soloGBps() != null && !(Double.isFinite(v.soloGBps()) && v.soloGBps() >= 0)) {
            return new Violation("validation.soloGBps", rank + "must be a finite figure >= 0, got " + v.soloGBps());
        }
        if (v.pairsSeconds() != null && !(Double.isFinite(v.pairsSeconds()) && v.pairsSeconds() >= 0)) {
            return new Violation("validation.pairsSeconds", rank + "must be a finite figure >= 0, got "
                    + v.pairsSeconds());
        }
        for (int i = 0; i < v.pairs().size(); i++) {
            RankValidation.PairMeasurement p = v.pairs().get(i);
            if (p == null || p.peer() < 0 || p.peer() >= worldSize || p.peer() == report.rank()) {
                return new Violation("validation.pairs[" + i + "].peer", rank + "must be another rank of the "
                        + worldSize + ", got " + (p == null ? "null" : p.peer()));
            }
            if (!(Double.isFinite(p.gbps()) && p.gbps() >= 0 && Double.isFinite(p.latencyMicros())
                    && p.latencyMicros() >= 0)) {
                return new Violation("validation.pairs[" + i + "]", rank + "needs finite figures >= 0");
            }
        }
        return null;
    }

    /** Keeps a rank's newest figures (a later report replaces the earlier). */
    static void take(JobRecord job, RankReport report) {
        if (report.validation() != null) {
            job.validations.put(report.rank(), report.validation());
        }
    }

    /** The job's validation as far as measured; null for a plain sweep. */
    static ValidationResult view(JobRecord job) {
        if (!job.spec.validates()) {
            return null;
        }
        ValidationSpec spec = job.spec.validation().withDefaults();
        List<RankPlace> ranks = new ArrayList<>();
        List<SoloFigure> solo = new ArrayList<>();
        Map<Integer, List<RankValidation.PairMeasurement>> measured = new TreeMap<>();
        job.validations.forEach((rank, v) -> {
            ranks.add(new RankPlace(rank, v.host(), v.device()));
            if (v.soloGBps() != null) {
                solo.add(new SoloFigure(rank, v.soloGBps()));
            }
            measured.put(rank, v.pairs());
        });
        SortedMap<Pair, PairFigure> pairs = PairFigures.of(measured);
        List<Integer> late = lastArrivals(job.results, job.worldSize, spec.minShortfall());
        int n = job.worldSize;
        List<Double> pairTimes = job.validations.values().stream().map(RankValidation::pairsSeconds)
                .filter(Objects::nonNull).toList();
        Double pairsSeconds = pairTimes.size() == n && n > 0 ? Collections.max(pairTimes) : null;
        String phase = job.state == JobState.SUCCEEDED ? ValidationResult.DONE
                : solo.size() < n || n == 0 ? ValidationResult.ALONE
                : pairs.size() < n * (n - 1) / 2 ? ValidationResult.PAIRS : ValidationResult.TOGETHER;
        List<Suspect> suspects = null;
        String verdict = null;
        if (job.state == JobState.SUCCEEDED && ranks.size() == n) {
            suspects = suspects(spec, ranks, solo, pairs, late, job.results);
            verdict = suspects.isEmpty() ? ValidationResult.HEALTHY : ValidationResult.SUSPECTS;
        } else if (job.state.isFinal()) {
            suspects = List.of();
            verdict = ValidationResult.FAILED;
        }
        return new ValidationResult(ranks, solo, List.copyOf(pairs.values()), pairsSeconds, late, suspects, verdict,
                phase);
    }

    private static List<Suspect> suspects(ValidationSpec spec, List<RankPlace> ranks, List<SoloFigure> solo,
                                          SortedMap<Pair, PairFigure> pairs, List<Integer> late, List<SizeResult> rows) {
        SuspectFinder finder = new SuspectFinder(spec.thresholds());
        Map<Integer, Double> soloByRank = new HashMap<>();
        solo.forEach(s -> soloByRank.put(s.rank(), s.gbps()));
        Map<Pair, Double> pairGbps = PairFigures.bandwidths(pairs);
        Map<Integer, Integer> lastArrival = new HashMap<>();
        for (int rank = 0; rank < late.size(); rank++) {
            lastArrival.put(rank, late.get(rank));
        }
        List<Suspect> found = new ArrayList<>(finder.find(ranks, soloByRank, pairGbps, lastArrival, rows.size()));
        Double expected = spec.expectBusBandwidthGBps();
        if (expected != null && !rows.isEmpty() && rows.getLast().busBandwidthGBps() < expected) {
            SizeResult largest = rows.getLast();
            found.add(new Suspect(-1, null, null, Suspect.Kind.GROUP, -1, String.format(Locale.ROOT,
                    "bus bandwidth %.3g GB/s at %d B, below the expected %.3g GB/s",
                    largest.busBandwidthGBps(), largest.bytes(), expected)));
        }
        return List.copyOf(found);
    }

    /**
     * Per rank, at how many sizes it was the one the others waited for: its own time the smallest, and at least
     * {@code minShortfall} below the median time of that size (a closer call is noise).
     */
    static List<Integer> lastArrivals(List<SizeResult> rows, int worldSize, double minShortfall) {
        List<Integer> counts = new ArrayList<>(Collections.nCopies(worldSize, 0));
        for (SizeResult row : rows) {
            List<Double> times = row.rankTimesMicros();
            if (times == null || times.size() != worldSize || worldSize < 3) {
                continue;
            }
            int fastest = 0;
            for (int r = 1; r < worldSize; r++) {
                if (times.get(r) < times.get(fastest)) {
                    fastest = r;
                }
            }
            RobustStats stats = RobustStats.of(times);
            if (stats.shortfall(times.get(fastest)) >= minShortfall) {
                counts.set(fastest, counts.get(fastest) + 1);
            }
        }
        return counts;
    }
}
