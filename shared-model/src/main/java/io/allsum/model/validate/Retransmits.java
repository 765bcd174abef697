package io.allsum.model.validate;

import io.allsum.model.jobs.RankValidation.LinkTraffic;
import io.allsum.model.jobs.ValidationResult.PairRetransmits;
import io.allsum.model.validate.PairSchedule.Pair;

import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The one rule for a lossy link, from the kernel's TCP counters: a pair's two directions together, judged only with
 * enough segments to say anything. A lost segment costs a link far more than its share of the bytes (TCP halves its
 * window, or waits out a timeout), so a share a timed exchange cannot see is still a fault.
 */
public final class Retransmits {

    /** Fewer segments between two ranks say nothing of their link (a same-host link carries only frame headers). */
    public static final long MIN_SEGMENTS = 1000;
    /** A pair resending this share of its segments is lossy: healthy links resend none or a few in 10,000. */
    public static final double LOSSY_SHARE = 0.002;
    /** ... and this many times the pairs' median share, so that a network lossy everywhere is not blamed on one link. */
    public static final double ABOVE_MEDIAN = 5;

    private Retransmits() {
    }

    /** Per pair, in pair order, both directions' counts from {@code byRank}: each rank's own links, by rank. */
    public static SortedMap<Pair, PairRetransmits> of(Map<Integer, ? extends Collection<LinkTraffic>> byRank) {
        SortedMap<Pair, long[]> sums = new TreeMap<>(Comparator.comparingInt(Pair::low).thenComparingInt(Pair::high));
        byRank.forEach((rank, links) -> links.forEach(l -> {
            if (l.peer() != rank) {
                long[] sum = sums.computeIfAbsent(Pair.of(rank, l.peer()), p -> new long[2]);
                sum[0] += l.segmentsOut();
                sum[1] += l.retransmits();
            }
        }));
        SortedMap<Pair, PairRetransmits> out = new TreeMap<>(sums.comparator());
        sums.forEach((pair, sum) -> out.put(pair, new PairRetransmits(pair.low(), pair.high(), sum[0], sum[1],
                sum[0] == 0 ? 0 : 100.0 * sum[1] / sum[0])));
        return out;
    }

    /** The lossy pairs: enough segments, at least {@link #LOSSY_SHARE} resent and {@link #ABOVE_MEDIAN} the median. */
    public static List<Pair> lossy(Map<Pair, PairRetransmits> counted) {
        double median = medianShare(counted.values());
        return counted.entrySet().stream().filter(e -> {
            PairRetransmits c = e.getValue();
            double share = (double) c.retransmits() / Math.max(1, c.segmentsOut());
            return c.segmentsOut() >= MIN_SEGMENTS && share >= LOSSY_SHARE && share >= ABOVE_MEDIAN * median;
        }).map(Map.Entry::getKey).toList();
    }

    /** The median share resent among the pairs with enough segments (0 where none has). */
    static double medianShare(Collection<PairRetransmits> counted) {
        List<Double> shares = counted.stream().filter(c -> c.segmentsOut() >= MIN_SEGMENTS)
                .map(c -> (double) c.retransmits() / c.segmentsOut()).toList();
        return shares.isEmpty() ? 0 : RobustStats.of(shares).median();
    }

    /** The share resent over {@code counted} together. */
    static double share(Collection<PairRetransmits> counted) {
        long segments = counted.stream().mapToLong(PairRetransmits::segmentsOut).sum();
        long resent = counted.stream().mapToLong(PairRetransmits::retransmits).sum();
        return segments == 0 ? 0 : (double) resent / segments;
    }
}
