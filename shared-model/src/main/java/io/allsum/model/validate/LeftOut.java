package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The ranks to leave out for the suspects: a rank suspect's rank, every rank of a host suspect, and for a link
 * whose ends are both still in, the end in more outlier pairs (the higher rank on a tie). {@code because} names
 * the suspects that put ranks in; a group suspect names no rank.
 */
public record LeftOut(List<Integer> ranks, List<String> because) {

    /** What {@code allsum validate --exclude} leaves out for {@code v}'s suspects. */
    public static LeftOut of(ValidationResult v, Thresholds thresholds) {
        SortedSet<Integer> ranks = new TreeSet<>();
        List<String> because = new ArrayList<>();
        List<Suspect> suspects = v.suspects() == null ? List.of() : v.suspects();
        for (Suspect s : suspects) {
            boolean oneRank = s.kind() == Suspect.Kind.RANK || s.kind() == Suspect.Kind.STRAGGLER
                    || s.kind() == Suspect.Kind.UNRESPONSIVE;
            if (oneRank && ranks.add(s.rank())) {
                because.add(s.kind() == Suspect.Kind.RANK ? "rank " + s.rank() : s.kind() + " rank " + s.rank());
            } else if (s.kind() == Suspect.Kind.HOST) {
                v.ranks().stream().filter(p -> s.host().equals(p.host())).forEach(p -> ranks.add(p.rank()));
                because.add("host " + s.host());
            }
        }
        Map<Pair, Double> pairs = new HashMap<>();
        v.pairs().forEach(p -> pairs.put(new Pair(p.low(), p.high()), p.gbps()));
        List<Pair> slow = new SuspectFinder(thresholds).slowPairs(pairs);
        for (Suspect s : suspects) {
            if (s.kind() != Suspect.Kind.LINK || ranks.contains(s.rank()) || ranks.contains(s.peerRank())) {
                continue;
            }
            long one = slow.stream().filter(p -> p.has(s.rank())).count();
            long other = slow.stream().filter(p -> p.has(s.peerRank())).count();
            int end = one != other ? (one > other ? s.rank() : s.peerRank()) : Math.max(s.rank(), s.peerRank());
            ranks.add(end);
            because.add("link " + s.rank() + "-" + s.peerRank());
        }
        return new LeftOut(List.copyOf(ranks), List.copyOf(because));
    }
}
