package io.allsum.server.jobs;

import io.allsum.model.jobs.JobState;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.validate.RankValidation;
import io.allsum.model.jobs.SizeResult;
import io.allsum.model.validate.ValidationResult;
import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.ValidationResult.PairRetransmits;
import io.allsum.model.validate.ValidationResult.SoloFigure;
import io.allsum.model.validate.ValidationSpec;
import io.allsum.model.problem.Violation;
import io.allsum.model.validate.RankValidation.Confirmation;
import io.allsum.model.validate.Baseline;
import io.allsum.model.validate.LastArrivals;
import io.allsum.model.validate.PairFigures;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.RankPlace;
import io.allsum.model.validate.Retransmits;
import io.allsum.model.validate.RobustStats;
import io.allsum.model.validate.Stragglers;
import io.allsum.model.validate.Stragglers.RankWaits;
import io.allsum.model.validate.Suspect;
import io.allsum.model.validate.SuspectFinder;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
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
            if (!(finite(p.gbps()) && finite(p.latencyMicros()) && finite(p.medianGBps()) && finite(p.worstGBps()))) {
                return new Violation("validation.pairs[" + i + "]", rank + "needs finite figures >= 0");
            }
        }
        if (v.barrierWaitsMicros().size() > MAX_BARRIERS) {
            return new Violation("validation.barrierWaitsMicros", rank + "at most " + MAX_BARRIERS + " barriers, got "
                    + v.barrierWaitsMicros().size());
        }
        if (!v.barrierWaitsMicros().stream().allMatch(w -> w != null && finite(w))) {
            return new Violation("validation.barrierWaitsMicros", rank + "needs finite waits >= 0");
        }
        if (v.lockstepSeconds() != null && !finite(v.lockstepSeconds())) {
            return new Violation("validation.lockstepSeconds", rank + "must be a finite figure >= 0, got "
                    + v.lockstepSeconds());
        }
        if (v.links().size() >= worldSize) {
            return new Violation("validation.links", rank + "at most one entry per peer (" + (worldSize - 1)
                    + "), got " + v.links().size());
        }
        for (int i = 0; i < v.links().size(); i++) {
            RankValidation.LinkTraffic l = v.links().get(i);
            if (l == null || l.peer() < 0 || l.peer() >= worldSize || l.peer() == report.rank()
                    || l.segmentsOut() < 0 || l.retransmits() < 0 || l.spuriousRetransmits() < 0) {
                return new Violation("validation.links[" + i + "]", rank + "needs another rank of the " + worldSize
                        + " and counts >= 0");
            }
        }
        RankValidation.CpuThrottling cpu = v.cpu();
        if (cpu != null && !(finite(cpu.throttledSeconds()) && finite(cpu.windowSeconds()) && cpu.throttledPeriods() >= 0
                && cpu.periods() >= cpu.throttledPeriods())) {
            return new Violation("validation.cpu", rank + "needs finite seconds >= 0 and throttled periods between 0 "
                    + "and periods");
        }
        if (v.confirmations().size() > MAX_CONFIRMATIONS || !v.confirmations().stream().allMatch(c -> c != null
                && c.key() != null && c.key().length() <= 64 && c.how() != null && c.how().length() <= 4096
                && (c.foundRank() == null || c.foundRank() >= 0 && c.foundRank() < worldSize))) {
            return new Violation("validation.confirmations", rank + "at most " + MAX_CONFIRMATIONS
                    + " entries, each with a key of at most 64 characters, a how of at most 4096 and any found "
                    + "rank one of the " + worldSize);
        }
        return null;
    }

    /** Bounds on one rank's report: the lock-step steps, pair rounds and retests fit well within them. */
    static final int MAX_BARRIERS = 100_000;
    static final int MAX_CONFIRMATIONS = 1000;

    private static boolean finite(double value) {
        return Double.isFinite(value) && value >= 0;
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
        Map<Integer, List<RankValidation.LinkTraffic>> links = new TreeMap<>();
        job.validations.forEach((rank, v) -> {
            links.put(rank, v.links());
            ranks.add(new RankPlace(rank, v.host(), v.device()));
            if (v.soloGBps() != null) {
                solo.add(new SoloFigure(rank, v.soloGBps()));
            }
            measured.put(rank, v.pairs());
        });
        SortedMap<Pair, PairFigure> pairs = PairFigures.of(measured);
        SortedMap<Pair, PairRetransmits> retransmits = Retransmits.of(links);
        List<Integer> late = lastArrivals(job.results, job.worldSize, spec.minShortfall());
        int n = job.worldSize;
        List<Double> pairTimes = job.validations.values().stream().map(RankValidation::pairsSeconds)
                .filter(Objects::nonNull).toList();
        Double pairsSeconds = pairTimes.size() == n && n > 0 ? Collections.max(pairTimes) : null;
        String phase = job.state == JobState.SUCCEEDED ? ValidationResult.DONE
                : solo.size() < n || n == 0 ? ValidationResult.ALONE
                : pairs.size() < n * (n - 1) / 2 ? ValidationResult.PAIRS : ValidationResult.TOGETHER;
        List<RankWaits> waits = waits(job, n);
        Double lockstep = lockstepSeconds(job, n);
        Map<String, Double> figures = Baseline.figuresOf(placesByRank(ranks, n), soloMap(solo),
                PairFigures.bandwidths(pairs), busbwBySize(job.results));
        List<Suspect> suspects = null;
        List<Suspect> unconfirmed = null;
        String verdict = null;
        if (job.state == JobState.SUCCEEDED && ranks.size() == n) {
            List<Suspect> found = new ArrayList<>();
            unconfirmed = new ArrayList<>();
            Map<String, Confirmation> confirmations = confirmations(job);
            for (Suspect s : finder(spec).find(ranks, soloMap(solo), PairFigures.bandwidths(pairs),
                    lateMap(late), job.results.size(), waits, lockstep == null ? 0 : lockstep)) {
                Confirmation c = confirmations.get(s.key());
                if (c == null) {
                    found.add(s.withConfirmation(s.kind() == Suspect.Kind.HOST
                            ? "not re-measured: every rank of the host is slow with the other hosts"
                            : "not re-measured: the ranks found no such suspect"));
                } else if (c.confirmed()) {
                    found.add(s.withConfirmation(c.how()));
                } else {
                    unconfirmed.add(s.withConfirmation(c.how()));
                }
            }
            for (Confirmation c : confirmations.values()) {
                if (c.foundRank() != null && c.confirmed() && indexOf(found, c.key()) < 0) {
                    RankPlace place = placesByRank(ranks, n).get(c.foundRank());
                    found.add(new Suspect(c.foundRank(), place.host(), place.device(), Suspect.Kind.RANK, -1,
                            "slow or stalled with every rank it was measured with while confirming the others",
                            c.how()));
                }
            }
            for (Suspect s : finder(spec).lossSuspects(ranks, retransmits)) {
                int at = indexOf(found, s.key());
                Suspect counted = s.withConfirmation("counted by the kernel over the whole validation: not re-measured");
                if (at < 0) {
                    found.add(counted);
                } else { // slow and lossy: one suspect with both
                    found.set(at, withCause(found.get(at), s));
                }
            }
            for (Suspect s : finder(spec).throttleSuspects(ranks, throttling(job))) {
                int at = indexOfRank(found, s.rank());
                if (at < 0) {
                    found.add(s.withConfirmation("counted by the kernel over the whole validation: not re-measured"));
                } else { // slow or late, and throttled: the cause joins the suspect already named
                    found.set(at, withCause(found.get(at), s));
                }
            }
            SizeResult largest = job.results.isEmpty() ? null : job.results.getLast();
            SuspectFinder.groupSuspects(spec.expectBusBandwidthGBps(), largest == null ? 0 : largest.bytes(),
                    largest == null ? null : largest.busBandwidthGBps(), spec.baseline(), figures)
                    .forEach(s -> found.add(s.withConfirmation("a group-wide figure, measured by every rank")));
            suspects = List.copyOf(found);
            verdict = suspects.isEmpty() ? ValidationResult.HEALTHY : ValidationResult.SUSPECTS;
        } else if (job.state.isFinal()) {
            suspects = unresponsive(job, ranks);
            unconfirmed = List.of();
            verdict = suspects.isEmpty() ? ValidationResult.FAILED : ValidationResult.SUSPECTS;
        }
        return new ValidationResult(ranks, solo, List.copyOf(pairs.values()), pairsSeconds, late, suspects, verdict,
                phase, waits, lockstep, unconfirmed == null ? null : List.copyOf(unconfirmed), figures,
                List.copyOf(retransmits.values()));
    }

    /** {@code named} with {@code cause}'s reason added, keeping how it was confirmed. */
    private static Suspect withCause(Suspect named, Suspect cause) {
        return new Suspect(named.rank(), named.host(), named.device(), named.kind(), named.peerRank(),
                named.reason() + "; " + cause.reason(), named.confirmation());
    }

    /** Each rank's CPU throttling, where its cgroup counted it. */
    private static Map<Integer, RankValidation.CpuThrottling> throttling(JobRecord job) {
        Map<Integer, RankValidation.CpuThrottling> out = new TreeMap<>();
        job.validations.forEach((rank, v) -> {
            if (v.cpu() != null) {
                out.put(rank, v.cpu());
            }
        });
        return out;
    }

    /** The first suspect naming {@code rank} on its own (a rank or a straggler), else -1. */
    private static int indexOfRank(List<Suspect> suspects, int rank) {
        for (int i = 0; i < suspects.size(); i++) {
            Suspect s = suspects.get(i);
            if (s.rank() == rank && (s.kind() == Suspect.Kind.RANK || s.kind() == Suspect.Kind.STRAGGLER)) {
                return i;
            }
        }
        return -1;
    }

    private static int indexOf(List<Suspect> suspects, String key) {
        for (int i = 0; i < suspects.size(); i++) {
            if (suspects.get(i).key().equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** The ranks the server heard nothing from past its heartbeat timeout while the validation ran. */
    private static List<Suspect> unresponsive(JobRecord job, List<RankPlace> ranks) {
        List<Suspect> out = new ArrayList<>();
        for (int rank : job.unresponsiveRanks) {
            RankPlace place = ranks.stream().filter(p -> p.rank() == rank).findFirst().orElse(null);
            out.add(new Suspect(rank, place == null ? null : place.host(), place == null ? null : place.device(),
                    Suspect.Kind.UNRESPONSIVE, -1, "sent no heartbeat within the server's timeout while the validation "
                    + "ran: " + job.failureReason, "the server's heartbeat timeout"));
        }
        return List.copyOf(out);
    }

    private static SuspectFinder finder(ValidationSpec spec) {
        return new SuspectFinder(spec.thresholds());
    }

    /** Every rank's lock-step waits once all ranks reported them (the same barriers on every rank), else empty. */
    private static List<RankWaits> waits(JobRecord job, int n) {
        List<List<Double>> all = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            RankValidation v = job.validations.get(rank);
            if (v == null || v.barrierWaitsMicros().isEmpty()) {
                return List.of();
            }
            all.add(v.barrierWaitsMicros());
        }
        return Stragglers.of(all);
    }

    /** The median of the ranks' lock-step wall times, as the ranks themselves take it; null until all reported. */
    private static Double lockstepSeconds(JobRecord job, int n) {
        List<Double> times = job.validations.values().stream().map(RankValidation::lockstepSeconds)
                .filter(Objects::nonNull).toList();
        return times.size() == n && n > 0 ? RobustStats.of(times).median() : null;
    }

    /** The ranks' confirmations (every rank holds the same), from the lowest rank that sent any. */
    private static Map<String, Confirmation> confirmations(JobRecord job) {
        Map<String, Confirmation> out = new java.util.LinkedHashMap<>();
        job.validations.values().stream().filter(v -> !v.confirmations().isEmpty()).findFirst()
                .ifPresent(v -> v.confirmations().forEach(c -> out.put(c.key(), c)));
        return out;
    }

    private static List<RankPlace> placesByRank(List<RankPlace> ranks, int n) {
        List<RankPlace> out = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            out.add(ranks.stream().filter(p -> p.rank() == r).findFirst().orElse(new RankPlace(r, null, null)));
        }
        return out;
    }

    private static Map<Integer, Double> soloMap(List<SoloFigure> solo) {
        Map<Integer, Double> out = new HashMap<>();
        solo.forEach(s -> out.put(s.rank(), s.gbps()));
        return out;
    }

    private static Map<Integer, Integer> lateMap(List<Integer> late) {
        Map<Integer, Integer> out = new HashMap<>();
        for (int rank = 0; rank < late.size(); rank++) {
            out.put(rank, late.get(rank));
        }
        return out;
    }

    private static Map<Long, Double> busbwBySize(List<SizeResult> rows) {
        Map<Long, Double> out = new TreeMap<>();
        rows.forEach(r -> out.put(r.bytes(), r.busBandwidthGBps()));
        return out;
    }

    /** Per rank, at how many sizes it was the one the others waited for ({@link LastArrivals}). */
    static List<Integer> lastArrivals(List<SizeResult> rows, int worldSize, double minShortfall) {
        return LastArrivals.count(rows.stream().map(SizeResult::rankTimesMicros).toList(), worldSize, minShortfall);
    }
}
