package io.allsum.model.validate;

import io.allsum.model.validate.RankValidation.LinkTraffic;
import io.allsum.model.validate.ValidationResult.PairRetransmits;
import io.allsum.model.validate.PairSchedule.Pair;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The one rule for lossy links, from the kernel's TCP counters: a pair's two directions together, a host's or rank's
 * pairs together against the pairs it is not in. A lost segment costs a link far more than its share of the bytes
 * (TCP halves its window, or waits out a timeout), so a share that timed exchanges do not see is still a fault. Lost
 * means resent and never reported back as a duplicate: a retransmit timer that fires before a starved peer's ACK
 * resends a whole 64 KiB flight (45 segments) the peer already had, and DSACK says so.
 */
public final class Retransmits {

    /** Fewer segments say nothing of a link (a same-host link carries only frame headers over TCP). */
    public static final long MIN_SEGMENTS = 1000;
    /**
     * A rank losing this share of its segments is lossy: 1% lost packets show as 1.3% resent, healthy links moving a
     * crowded 2-core machine's full rate up to 0.6%.
     */
    public static final double LOSSY_SHARE = 0.01;
    /**
     * A host's bar: its pairs with other hosts hold twice a rank's segments, so fewer of 1%'s few lost packets go
     * unseen (a lossy host's ranks resent 1.0% and under 1% in one CI run), while healthy hosts stay under 0.35%.
     */
    public static final double LOSSY_HOST_SHARE = 0.007;
    /** ... and in at least half of its pairs (and 2) this share is resent: one lossy link does not make a host. */
    public static final double PAIR_SHARE = 0.005;
    /** ... and this many times the median share of the pairs it is not in: a network lossy everywhere blames nobody. */
    public static final double ABOVE_OTHERS = 4;
    /** One pair alone is judged only with this many segments (some 2,000 packets), at {@link #LINK_SHARE}. */
    public static final long LINK_SEGMENTS = 100_000;
    public static final double LINK_SHARE = 0.025;

    private Retransmits() {
    }

    /** Per pair, in pair order, both directions' counts from {@code byRank}: each rank's own links, by rank. */
    public static SortedMap<Pair, PairRetransmits> of(Map<Integer, ? extends Collection<LinkTraffic>> byRank) {
        SortedMap<Pair, long[]> sums = new TreeMap<>(Comparator.comparingInt(Pair::low).thenComparingInt(Pair::high));
        byRank.forEach((rank, links) -> links.forEach(l -> {
            if (l.peer() != rank) {
                long[] sum = sums.computeIfAbsent(Pair.of(rank, l.peer()), p -> new long[3]);
                sum[0] += l.segmentsOut();
                sum[1] += l.retransmits();
                sum[2] += l.spuriousRetransmits();
            }
        }));
        SortedMap<Pair, PairRetransmits> out = new TreeMap<>(sums.comparator());
        sums.forEach((pair, sum) -> out.put(pair, PairRetransmits.of(pair.low(), pair.high(), sum[0], sum[1], sum[2])));
        return out;
    }

    /**
     * What the counters say about some pairs ({@code inside}) against the rest: their share together, the median
     * share of the others, and how many of them ({@code pairs}, those of {@link #MIN_SEGMENTS} or more) lost {@link #PAIR_SHARE}.
     */
    public record Verdict(long segments, long lost, double share, double othersShare, int pairs, int lossyPairs) {

        /**
         * Lossy together at {@code bar}, and in at least half of the pairs and 2: one lossy link does not make its
         * rank lossy.
         */
        public boolean lossy(double bar) {
            return stands(bar) && lossyPairs >= 2 && 2 * lossyPairs >= pairs;
        }

        boolean stands(double bar) {
            return segments >= MIN_SEGMENTS && share >= bar && share >= ABOVE_OTHERS * othersShare;
        }

        boolean standsAlone() {
            return segments >= LINK_SEGMENTS && stands(LINK_SHARE);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d of %d (%.2g%%, %d of %d pairs at %.2g%% or more) against %.2g%% on "
                    + "the other pairs' median", lost, segments, 100 * share, lossyPairs, pairs, 100 * PAIR_SHARE,
                    100 * othersShare);
        }
    }

    /**
     * The pairs {@code inside} together, against the median pair {@code outside}: a median, because a crowded
     * machine gives a healthy pair now and then a burst of spurious resends (5% of one pair's 9,500 segments seen).
     */
    public static Verdict judge(Map<Pair, PairRetransmits> counted, Predicate<Pair> inside, Predicate<Pair> outside) {
        long[] in = new long[2];
        List<Double> others = new ArrayList<>();
        int pairs = 0;
        int lossy = 0;
        for (Map.Entry<Pair, PairRetransmits> e : counted.entrySet()) {
            PairRetransmits c = e.getValue();
            if (inside.test(e.getKey())) {
                in[0] += c.segmentsOut();
                in[1] += c.lost();
                if (c.segmentsOut() >= MIN_SEGMENTS) {
                    pairs++;
                    lossy += c.lost() >= PAIR_SHARE * c.segmentsOut() ? 1 : 0;
                }
            } else if (outside.test(e.getKey()) && c.segmentsOut() >= MIN_SEGMENTS) {
                others.add((double) c.lost() / c.segmentsOut());
            }
        }
        return new Verdict(in[0], in[1], in[0] == 0 ? 0 : (double) in[1] / in[0],
                others.isEmpty() ? 0 : RobustStats.of(others).median(), pairs, lossy);
    }

    /** The pairs lossy on their own: {@link #LINK_SEGMENTS}, {@link #LINK_SHARE} resent, well above the other pairs. */
    public static List<Pair> lossyLinks(Map<Pair, PairRetransmits> counted) {
        return counted.keySet().stream()
                .filter(pair -> judge(counted, pair::equals, p -> !p.equals(pair)).standsAlone()).toList();
    }
}
