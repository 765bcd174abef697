package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;

/**
 * Turns validation's figures into suspects, each figure judged against its own group's median (solo figures
 * against solo figures, pair bandwidths against pair bandwidths), so one bad member cannot hide by moving the bar.
 * Blame goes to the smallest thing that explains the slow pairs: a host when all its ranks are slow with other
 * hosts, else a rank when most of its pairs are slow, else the link itself.
 */
public final class SuspectFinder {

    /** A rank's pairs' median this far below the ranks' median makes it a suspect whatever the spread. */
    static final double SEVERE_SHORTFALL = 0.75;

    private final Thresholds thresholds;

    public SuspectFinder(Thresholds thresholds) {
        this.thresholds = thresholds;
    }

    /**
     * @param places      every rank, by rank number
     * @param solo        each rank's figure alone (higher is better, e.g. GB/s); empty to skip
     * @param pairs       each measured pair's bandwidth (higher is better); empty to skip
     * @param lastArrival per rank, in how many of the all-together sizes it arrived last
     * @param sizes       how many sizes the all-together phase measured (0 to skip the arrival check)
     */
    public List<Suspect> find(List<RankPlace> places, Map<Integer, Double> solo, Map<Pair, Double> pairs,
                              Map<Integer, Integer> lastArrival, int sizes) {
        return find(places, solo, pairs, lastArrival, sizes, List.of(), 0);
    }

    /**
     * As {@link #find(List, Map, Map, Map, int)}, with the lock-step barriers' waits ({@link Stragglers}, one entry
     * per rank or none) over {@code lockstepSeconds} of wall time.
     */
    public List<Suspect> find(List<RankPlace> places, Map<Integer, Double> solo, Map<Pair, Double> pairs,
                              Map<Integer, Integer> lastArrival, int sizes, List<Stragglers.RankWaits> waits,
                              double lockstepSeconds) {
        Map<String, Suspect> found = new LinkedHashMap<>();
        soloSuspects(places, solo, found);
        pairSuspects(places, pairs, found);
        pairMedianSuspects(places, pairs, found);
        stragglerSuspects(places, waits, lockstepSeconds, found);
        lateSuspects(places, lastArrival, sizes, found);
        return List.copyOf(found.values());
    }

    /**
     * The ranks the others waited for: a rank's waits caused exceed the other ranks' median by {@code minStallShare}
     * of the lock-step time, and stand {@code minDeviations} above the others' spread (with 3 or more others); and
     * the one rank they waited for most, by that share alone, as a stop on a crowded host hides in its jitter. The
     * worker's probes confirm or clear each before it is named.
     */
    public List<Integer> stragglers(List<Stragglers.RankWaits> waits, double lockstepSeconds) {
        List<Integer> out = new ArrayList<>();
        if (waits.size() < 2 || !(lockstepSeconds > 0)) {
            return out;
        }
        for (Stragglers.RankWaits w : waits) {
            List<Double> others = waits.stream().filter(o -> o.rank() != w.rank())
                    .map(Stragglers.RankWaits::causedSeconds).toList();
            RobustStats stats = RobustStats.of(others);
            double excess = w.causedSeconds() - stats.median();
            double spread = stats.mad() * RobustStats.NORMAL_SCALE;
            if (excess >= thresholds.minStallShare() * lockstepSeconds
                    && (others.size() < 3 || spread == 0 || excess / spread >= thresholds.minDeviations())) {
                out.add(w.rank());
            }
        }
        waits.stream().max(Comparator.comparingDouble(Stragglers.RankWaits::causedSeconds)).ifPresent(most -> {
            double others = RobustStats.of(waits.stream().filter(o -> o.rank() != most.rank())
                    .map(Stragglers.RankWaits::causedSeconds).toList()).median();
            boolean alone = waits.stream().filter(o -> o.causedSeconds() == most.causedSeconds()).count() == 1;
            if (alone && !out.contains(most.rank())
                    && most.causedSeconds() - others >= thresholds.minStallShare() * lockstepSeconds) {
                out.add(most.rank());
            }
        });
        return out;
    }

    private void stragglerSuspects(List<RankPlace> places, List<Stragglers.RankWaits> waits, double lockstepSeconds,
                                   Map<String, Suspect> found) {
        double median = waits.isEmpty() ? 0 : RobustStats.of(waits.stream()
                .map(Stragglers.RankWaits::causedSeconds).toList()).median();
        for (int rank : stragglers(waits, lockstepSeconds)) {
            Stragglers.RankWaits w = waits.get(rank);
            addEvidence(found, places.get(rank), String.format(Locale.ROOT,
                    "the others waited %.3g s for it, late at %d of %d barriers (%.0f%% of the %.3g s in lock-step; "
                            + "the ranks' median %.3g s)", w.causedSeconds(), w.lateBarriers(), w.barriers(),
                    100 * w.causedSeconds() / lockstepSeconds, lockstepSeconds, median));
        }
    }

    private void soloSuspects(List<RankPlace> places, Map<Integer, Double> solo, Map<String, Suspect> found) {
        if (solo.size() < 3) {
            return; // with two figures there is no majority to judge by
        }
        RobustStats stats = RobustStats.of(solo.values());
        new TreeMap<>(solo).forEach((rank, value) -> {
            if (thresholds.outlier(stats, value)) {
                add(found, suspect(places.get(rank), Suspect.Kind.RANK, -1, String.format(Locale.ROOT,
                        "alone: %s against the group's median %s (%.0f%% lower)", figure(value),
                        figure(stats.median()), 100 * stats.shortfall(value))));
            }
        });
    }

    /**
     * The pairs whose bandwidth is an outlier among all pairs' (the slowest first, ties in rank order); none with
     * fewer than 3 pairs, where there is no majority to judge by. The one rule for a slow pair, on server and worker.
     */
    public List<Pair> slowPairs(Map<Pair, Double> pairs) {
        if (pairs.size() < 3) {
            return List.of();
        }
        RobustStats stats = RobustStats.of(pairs.values());
        return pairs.keySet().stream().filter(pair -> thresholds.outlier(stats, pairs.get(pair)))
                .sorted(Comparator.comparingDouble((Pair pair) -> pairs.get(pair)).thenComparing(PAIR_ORDER))
                .toList();
    }

    /**
     * The ranks that {@code slow} pairs blame rather than their links: at least {@code pairShare} of the rank's pairs,
     * and at least 2, are slow. The one rule, for the suspects and for which pairs the worker measures again.
     */
    public Set<Integer> slowRanks(Map<Pair, Double> pairs, Collection<Pair> slow) {
        Set<Pair> slowSet = new LinkedHashSet<>(slow);
        Set<Integer> ranks = new TreeSet<>();
        slowSet.forEach(p -> {
            for (int rank : new int[]{p.low(), p.high()}) {
                if (slowCount(rank, slowSet) >= 2
                        && share(rank, pairs.keySet(), slowSet, peer -> true) >= thresholds.pairShare()) {
                    ranks.add(rank);
                }
            }
        });
        return ranks;
    }

    private void pairSuspects(List<RankPlace> places, Map<Pair, Double> pairs, Map<String, Suspect> found) {
        Set<Pair> slow = new LinkedHashSet<>();
        slowPairs(pairs).stream().sorted(PAIR_ORDER).forEach(slow::add);
        if (slow.isEmpty()) {
            return;
        }
        RobustStats stats = RobustStats.of(pairs.values());
        Set<Integer> blamedRanks = new LinkedHashSet<>();
        for (Map.Entry<String, List<RankPlace>> host : byHost(places).entrySet()) {
            List<RankPlace> members = host.getValue();
            if (members.size() == places.size()) {
                break; // one host: no host link to blame
            }
            boolean allSlowAcross = members.stream().allMatch(m -> share(m.rank(), pairs.keySet(), slow,
                    peer -> !places.get(peer).host().equals(host.getKey())) >= thresholds.pairShare());
            if (allSlowAcross) {
                RankPlace first = members.getFirst();
                add(found, suspect(first, Suspect.Kind.HOST, -1, String.format(Locale.ROOT,
                        "every rank on %s is slow with other hosts: median %s against the group's pair median %s",
                        host.getKey(), figure(medianAcross(members, pairs, places)), figure(stats.median()))));
                members.forEach(m -> blamedRanks.add(m.rank()));
            }
        }
        Set<Integer> slowRanks = slowRanks(pairs, slow);
        for (RankPlace place : places) {
            int rank = place.rank();
            if (!blamedRanks.contains(rank) && slowRanks.contains(rank)) {
                add(found, suspect(place, Suspect.Kind.RANK, -1, String.format(Locale.ROOT,
                        "slow with %d of %d peers: median %s against the group's pair median %s",
                        slowCount(rank, slow), pairCount(rank, pairs.keySet()), figure(medianOf(rank, pairs)),
                        figure(stats.median()))));
                blamedRanks.add(rank);
            }
        }
        for (Pair pair : slow) {
            if (!blamedRanks.contains(pair.low()) && !blamedRanks.contains(pair.high())) {
                double value = pairs.get(pair);
                add(found, suspect(places.get(pair.low()), Suspect.Kind.LINK, pair.high(), String.format(Locale.ROOT,
                        "pair %d-%d: %s against the group's pair median %s (%.0f%% lower)", pair.low(), pair.high(),
                        figure(value), figure(stats.median()), 100 * stats.shortfall(value))));
            }
        }
    }

    private static Set<Integer> members(Map.Entry<String, List<RankPlace>> host) {
        return new TreeSet<>(host.getValue().stream().map(RankPlace::rank).toList());
    }

    /** The pairs with neither end in {@code explained}: what a rank or host already named does not account for. */
    private static java.util.function.Predicate<Pair> unexplainedBy(Set<Integer> explained) {
        return p -> !explained.contains(p.low()) && !explained.contains(p.high());
    }

    /** A host's pairs with other hosts against the pairs it is not in, leaving out pairs with {@code explained}. */
    private static Retransmits.Verdict hostLoss(Map<Pair, ValidationResult.PairRetransmits> counted,
                                                Set<Integer> members, Set<Integer> explained) {
        java.util.function.Predicate<Pair> unexplained = unexplainedBy(explained);
        return Retransmits.judge(counted, p -> unexplained.test(p) && members.contains(p.low())
                != members.contains(p.high()), p -> unexplained.test(p) && !members.contains(p.low())
                && !members.contains(p.high()));
    }

    /**
     * The hosts, ranks and links whose TCP connections lost a share of their segments ({@link Retransmits}),
     * smallest level last: a host over all its pairs with other hosts, a rank over all its pairs, each against the
     * pairs it is not in; a link only at {@link Retransmits#LINK_SHARE}, since one pair holds few packets. The kernel
     * counted every segment of the whole validation, so these are not measured again.
     */
    public List<Suspect> lossSuspects(List<RankPlace> places, Map<Pair, ValidationResult.PairRetransmits> counted) {
        Map<String, Suspect> found = new LinkedHashMap<>();
        Set<Integer> blamed = new LinkedHashSet<>();
        Map<String, List<RankPlace>> hosts = byHost(places);
        // the host losing most is judged first, and its pairs explain a neighbour's: the pairs of a lossy host
        // with each of the others would otherwise make a host whose own links are clean look lossy too
        List<Map.Entry<String, List<RankPlace>>> order = new ArrayList<>(hosts.size() > 1 ? hosts.entrySet()
                : List.<Map.Entry<String, List<RankPlace>>>of());
        order.sort(Comparator.comparingDouble((Map.Entry<String, List<RankPlace>> h) ->
                -hostLoss(counted, members(h), Set.of()).share()));
        for (Map.Entry<String, List<RankPlace>> host : order) {
            Set<Integer> members = members(host);
            Set<Integer> explained = Set.copyOf(blamed);
            Retransmits.Verdict v = hostLoss(counted, members, explained);
            if (v.lossy(Retransmits.LOSSY_HOST_SHARE)) {
                add(found, suspect(host.getValue().getFirst(), Suspect.Kind.HOST, -1, String.format(Locale.ROOT,
                        "every rank on %s loses TCP segments to other hosts: %s", host.getKey(), v)));
                blamed.addAll(members);
            }
        }
        // ranks likewise, the most losing first; a rank is lossy over all its pairs and also without its pairs
        // with ranks already named: a neighbour of a lossy host, with one noisy pair of its own, once stood at 1.2%
        // over 3 of its 6 pairs in CI (0.87% over 1 of 4 without the host's)
        List<RankPlace> ranks = new ArrayList<>(places);
        ranks.sort(Comparator.comparingDouble((RankPlace r) ->
                -Retransmits.judge(counted, p -> p.has(r.rank()), p -> !p.has(r.rank())).share()));
        for (RankPlace place : ranks) {
            int rank = place.rank();
            Set<Integer> explained = Set.copyOf(blamed);
            java.util.function.Predicate<Pair> unexplained = unexplainedBy(explained);
            Retransmits.Verdict v = Retransmits.judge(counted, p -> p.has(rank), p -> !p.has(rank));
            boolean stillLossy = explained.isEmpty() || Retransmits.judge(counted,
                    p -> p.has(rank) && unexplained.test(p), p -> !p.has(rank) && unexplained.test(p))
                    .lossy(Retransmits.LOSSY_SHARE);
            if (!blamed.contains(rank) && v.lossy(Retransmits.LOSSY_SHARE) && stillLossy) {
                add(found, suspect(place, Suspect.Kind.RANK, -1, "loses TCP segments to its peers: " + v));
                blamed.add(rank);
            }
        }
        for (Pair pair : Retransmits.lossyLinks(counted)) {
            if (!blamed.contains(pair.low()) && !blamed.contains(pair.high())) {
                ValidationResult.PairRetransmits c = counted.get(pair);
                add(found, suspect(places.get(pair.low()), Suspect.Kind.LINK, pair.high(), String.format(Locale.ROOT,
                        "pair %d-%d lost %d of %d TCP segments (%.2g%%)", pair.low(), pair.high(), c.lost(),
                        c.segmentsOut(), c.percent())));
            }
        }
        return List.copyOf(found.values());
    }

    /**
     * A rank whose CPU cgroup's quota ran out in this share of its periods is held back by it: on 2 cores a 20% quota
     * with a 10 ms period ran out in 73-86% of them, a 50% quota with a 100 ms period that barely binds in 0-26%.
     */
    public static final double THROTTLED_PERIODS = 0.5;
    /** ... and in at least this many periods: a handful says nothing. */
    public static final long MIN_THROTTLED_PERIODS = 5;

    /**
     * The ranks whose CPU cgroup's quota held them back ({@link RankValidation.CpuThrottling}): a quota that binds
     * slows its rank whether or not the timed phases caught it (that 20% quota was caught by them in 6-8 of 10 runs).
     * Counted by the kernel over the whole validation: not re-measured.
     */
    public List<Suspect> throttleSuspects(List<RankPlace> places, Map<Integer, RankValidation.CpuThrottling> byRank) {
        List<Suspect> found = new ArrayList<>();
        for (RankPlace place : places) {
            RankValidation.CpuThrottling t = byRank.get(place.rank());
            if (t != null && t.periodShare() >= THROTTLED_PERIODS && t.throttledPeriods() >= MIN_THROTTLED_PERIODS) {
                found.add(suspect(place, Suspect.Kind.RANK, -1, String.format(Locale.ROOT,
                        "its CPU cgroup's quota ran out in %d of its %d periods (%.0f%%) over %.1f s, holding it "
                                + "back %.2f s (summed over CPUs): a CPU limit", t.throttledPeriods(), t.periods(),
                        100 * t.periodShare(), t.windowSeconds(), t.throttledSeconds())));
            }
        }
        return found;
    }

    /**
     * A rank whose own pairs' median is out of line with the other ranks' medians. With few ranks one bad rank is
     * in a large share of all pairs (2/N), which widens the pairs' spread until none of them stands out; each
     * healthy rank's median still ignores its one pair with the bad rank. A host whose ranks are all such is named
     * instead, when there are other hosts. A median below a quarter of the ranks' median is out of line however
     * noisy the others are (ranks sharing cores spread by tens of percent; a throttled link costs 90% and more).
     */
    private void pairMedianSuspects(List<RankPlace> places, Map<Pair, Double> pairs, Map<String, Suspect> found) {
        Map<Integer, Double> medians = new TreeMap<>();
        for (RankPlace place : places) {
            if (pairs.keySet().stream().anyMatch(p -> p.has(place.rank()))) {
                medians.put(place.rank(), medianOf(place.rank(), pairs));
            }
        }
        if (medians.size() < 3) {
            return;
        }
        RobustStats stats = RobustStats.of(medians.values());
        Set<Integer> blamed = new LinkedHashSet<>();
        found.values().stream().filter(s -> s.kind() != Suspect.Kind.LINK).forEach(s -> {
            if (s.kind() == Suspect.Kind.HOST) {
                places.stream().filter(p -> p.host().equals(s.host())).forEach(p -> blamed.add(p.rank()));
            } else {
                blamed.add(s.rank());
            }
        });
        Set<Integer> out = new LinkedHashSet<>();
        medians.forEach((rank, median) -> {
            if (!blamed.contains(rank) && (thresholds.outlier(stats, median)
                    || stats.shortfall(median) >= SEVERE_SHORTFALL)) {
                out.add(rank);
            }
        });
        Map<String, List<RankPlace>> hosts = byHost(places);
        for (Map.Entry<String, List<RankPlace>> host : hosts.entrySet()) {
            List<RankPlace> members = host.getValue();
            if (hosts.size() > 1 && members.size() > 1 && members.stream().allMatch(m -> out.contains(m.rank()))) {
                add(found, suspect(members.getFirst(), Suspect.Kind.HOST, -1, String.format(Locale.ROOT,
                        "every rank on %s is slow with its peers: median %s against the group's pair median %s",
                        host.getKey(), figure(medianAcross(members, pairs, places)), figure(stats.median()))));
                members.forEach(m -> out.remove(m.rank()));
            }
        }
        for (int rank : out) {
            add(found, suspect(places.get(rank), Suspect.Kind.RANK, -1, String.format(Locale.ROOT,
                    "its pairs' median %s against the ranks' median %s (%.0f%% lower)", figure(medians.get(rank)),
                    figure(stats.median()), 100 * stats.shortfall(medians.get(rank)))));
        }
    }

    private void lateSuspects(List<RankPlace> places, Map<Integer, Integer> lastArrival, int sizes,
                              Map<String, Suspect> found) {
        if (sizes == 0 || places.size() < 3) {
            return;
        }
        new TreeMap<>(lastArrival).forEach((rank, count) -> {
            if (count >= thresholds.lateShare() * sizes && count >= 2
                    && places.size() * chanceOfAtLeast(count, sizes, 1.0 / places.size()) < LATE_CHANCE) {
                addEvidence(found, places.get(rank), String.format(Locale.ROOT,
                        "rank %d arrived last at the all-reduce in %d of %d sizes", rank, count, sizes));
            }
        });
    }

    /**
     * How unlikely a late count must be for ranks that arrive last at random (each size one of N ranks alike), over
     * all N ranks: with few sizes, noise alone makes some rank last at most of them.
     */
    static final double LATE_CHANCE = 0.01;

    /** P(X >= k) for X binomial(n, p). */
    static double chanceOfAtLeast(int k, int n, double p) {
        double total = 0;
        for (int i = k; i <= n; i++) {
            double term = 1;
            for (int j = 0; j < i; j++) {
                term *= (double) (n - j) / (j + 1) * p;
            }
            total += term * Math.pow(1 - p, n - i);
        }
        return total;
    }

    /**
     * What singles out no member: the sweep's largest size below {@code --expect-busbw}, and every figure of this run
     * that falls short of {@code baseline} by more than its margin; one {@code group} suspect with all of them.
     */
    public static List<Suspect> groupSuspects(Double expectBusBandwidthGBps, long largestBytes,
                                              Double largestBusBandwidthGBps, Baseline baseline,
                                              Map<String, Double> baselineFigures) {
        Map<String, Suspect> found = new LinkedHashMap<>();
        if (expectBusBandwidthGBps != null && largestBusBandwidthGBps != null
                && largestBusBandwidthGBps < expectBusBandwidthGBps) {
            add(found, new Suspect(-1, null, null, Suspect.Kind.GROUP, -1, String.format(Locale.ROOT,
                    "bus bandwidth %.3g GB/s at %d B, below the expected %.3g GB/s",
                    largestBusBandwidthGBps, largestBytes, expectBusBandwidthGBps)));
        }
        if (baseline != null) {
            for (String shortfall : baseline.shortfalls(baselineFigures)) {
                add(found, new Suspect(-1, null, null, Suspect.Kind.GROUP, -1, "against the baseline: " + shortfall));
            }
        }
        return List.copyOf(found.values());
    }

    private static final Comparator<Pair> PAIR_ORDER = Comparator.comparingInt(Pair::low).thenComparingInt(Pair::high);

    /** A later finding about the same member adds its evidence to the first. */
    private static void add(Map<String, Suspect> found, Suspect suspect) {
        String key = suspect.key();
        Suspect before = found.get(key);
        found.put(key, before == null ? suspect : new Suspect(before.rank(), before.host(), before.device(),
                before.kind(), before.peerRank(), before.reason() + "; " + suspect.reason()));
    }

    /**
     * Waiting for a rank is a symptom: against a rank (or its host) already named it is more evidence for that
     * suspect, not a second one; otherwise the rank is named a straggler.
     */
    private static void addEvidence(Map<String, Suspect> found, RankPlace place, String reason) {
        Suspect named = found.values().stream()
                .filter(s -> s.kind() == Suspect.Kind.RANK && s.rank() == place.rank()).findFirst()
                .or(() -> found.values().stream().filter(s -> s.kind() == Suspect.Kind.HOST
                        && s.host().equals(place.host())).findFirst())
                .orElse(null);
        add(found, named != null ? new Suspect(named.rank(), named.host(), named.device(), named.kind(), -1, reason)
                : suspect(place, Suspect.Kind.STRAGGLER, -1, reason));
    }

    private static Suspect suspect(RankPlace place, Suspect.Kind kind, int peer, String reason) {
        return new Suspect(place.rank(), place.host(), place.device(), kind, peer, reason);
    }

    private static Map<String, List<RankPlace>> byHost(List<RankPlace> places) {
        Map<String, List<RankPlace>> hosts = new LinkedHashMap<>();
        places.forEach(p -> hosts.computeIfAbsent(p.host(), h -> new ArrayList<>()).add(p));
        return hosts;
    }

    private static double share(int rank, Collection<Pair> measured, Set<Pair> slow,
                                IntPredicate peerFilter) {
        long all = measured.stream().filter(p -> p.has(rank) && peerFilter.test(p.peerOf(rank))).count();
        long bad = slow.stream().filter(p -> p.has(rank) && peerFilter.test(p.peerOf(rank))).count();
        return all == 0 ? 0 : (double) bad / all;
    }

    private static long slowCount(int rank, Set<Pair> slow) {
        return slow.stream().filter(p -> p.has(rank)).count();
    }

    private static long pairCount(int rank, Collection<Pair> measured) {
        return measured.stream().filter(p -> p.has(rank)).count();
    }

    private static double medianOf(int rank, Map<Pair, Double> pairs) {
        return RobustStats.of(pairs.entrySet().stream().filter(e -> e.getKey().has(rank))
                .map(Map.Entry::getValue).toList()).median();
    }

    private static double medianAcross(List<RankPlace> members, Map<Pair, Double> pairs, List<RankPlace> places) {
        String host = members.getFirst().host();
        return RobustStats.of(pairs.entrySet().stream()
                .filter(e -> places.get(e.getKey().low()).host().equals(host)
                        != places.get(e.getKey().high()).host().equals(host))
                .map(Map.Entry::getValue).toList()).median();
    }

    private static String figure(double value) {
        return String.format(Locale.ROOT, "%.3g", value);
    }
}
