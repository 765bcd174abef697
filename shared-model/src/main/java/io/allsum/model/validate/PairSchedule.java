package io.allsum.model.validate;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Every pair of {@code ranks} exactly once, as a round-robin tournament (the circle method): N-1 rounds of N/2
 * disjoint pairs for even N, N rounds with one rank idle for odd N. No rank is in two pairs of one round, so a
 * round's pairs run at once and the phase takes N-1 pair times, not N(N-1)/2. {@link #of} schedules a given list of
 * pairs (a retest) the same way.
 */
public record PairSchedule(int ranks, List<List<Pair>> rounds) {

    /** Two ranks, lower first. */
    public record Pair(int low, int high) {
        public Pair {
            if (low < 0 || high <= low) {
                throw new IllegalArgumentException("a pair needs 0 <= low < high, got " + low + ", " + high);
            }
        }

        public static Pair of(int a, int b) {
            return new Pair(Math.min(a, b), Math.max(a, b));
        }

        public boolean has(int rank) {
            return low == rank || high == rank;
        }

        public int peerOf(int rank) {
            return rank == low ? high : low;
        }
    }

    public PairSchedule {
        rounds = rounds.stream().map(List::copyOf).toList();
    }

    public static PairSchedule roundRobin(int ranks) {
        if (ranks < 2) {
            throw new IllegalArgumentException("a pair schedule needs at least 2 ranks, got " + ranks);
        }
        int slots = ranks % 2 == 0 ? ranks : ranks + 1; // odd: one slot is a bye
        int[] circle = new int[slots];
        for (int i = 0; i < slots; i++) {
            circle[i] = i;
        }
        List<List<Pair>> rounds = new ArrayList<>(slots - 1);
        for (int round = 0; round < slots - 1; round++) {
            List<Pair> pairs = new ArrayList<>(slots / 2);
            for (int i = 0; i < slots / 2; i++) {
                int a = circle[i];
                int b = circle[slots - 1 - i];
                if (a < ranks && b < ranks) {
                    pairs.add(Pair.of(a, b));
                }
            }
            rounds.add(pairs);
            // keep circle[0] fixed and rotate the others one place
            int last = circle[slots - 1];
            System.arraycopy(circle, 1, circle, 2, slots - 2);
            circle[1] = last;
        }
        return new PairSchedule(ranks, rounds);
    }

    /**
     * {@code pairs} in rounds of disjoint pairs, greedily: each pair, in the order given, joins the first round that
     * has neither of its ranks, else opens a round. The same list gives the same schedule on every rank.
     */
    public static PairSchedule of(int ranks, List<Pair> pairs) {
        List<List<Pair>> rounds = new ArrayList<>();
        List<Set<Integer>> busy = new ArrayList<>();
        for (Pair pair : new LinkedHashSet<>(pairs)) {
            if (pair.high() >= ranks) {
                throw new IllegalArgumentException("pair " + pair + " outside " + ranks + " ranks");
            }
            int round = 0;
            while (round < rounds.size() && (busy.get(round).contains(pair.low())
                    || busy.get(round).contains(pair.high()))) {
                round++;
            }
            if (round == rounds.size()) {
                rounds.add(new ArrayList<>());
                busy.add(new HashSet<>());
            }
            rounds.get(round).add(pair);
            busy.get(round).add(pair.low());
            busy.get(round).add(pair.high());
        }
        return new PairSchedule(ranks, rounds);
    }

    /** The pairs of {@code rank}'s round, or -1 when it sits out that round. */
    public int peerOf(int rank, int round) {
        for (Pair pair : rounds.get(round)) {
            if (pair.has(rank)) {
                return pair.peerOf(rank);
            }
        }
        return -1;
    }

    public int pairCount() {
        return rounds.stream().mapToInt(List::size).sum();
    }
}
