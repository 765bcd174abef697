package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class SuspectFinderTest {

    private static final SuspectFinder FINDER = new SuspectFinder(Thresholds.DEFAULTS);

    /** 4 hosts x 2 ranks, as the network-namespace harness lays them out. */
    private static final List<RankPlace> PLACES = IntStream.range(0, 8)
            .mapToObj(r -> new RankPlace(r, "10.0.0." + (r / 2 + 1), "cpu")).toList();

    private static Map<Pair, Double> pairs(Random noise, java.util.function.BiFunction<Integer, Integer, Double> bw) {
        Map<Pair, Double> pairs = new HashMap<>();
        for (List<Pair> round : PairSchedule.roundRobin(8).rounds()) {
            for (Pair p : round) {
                pairs.put(p, bw.apply(p.low(), p.high()) * (1 + 0.05 * noise.nextGaussian()));
            }
        }
        return pairs;
    }

    private static Map<Integer, Double> solo(Random noise, int slowRank) {
        Map<Integer, Double> solo = new HashMap<>();
        for (int r = 0; r < 8; r++) {
            solo.put(r, (r == slowRank ? 0.4 : 1.0) * 3.0 * (1 + 0.05 * noise.nextGaussian()));
        }
        return solo;
    }

    /** Host 10.0.0.3 (ranks 4 and 5) is the only suspect, for {@code reason}. */
    private static void assertTheOneSuspectIsHost3(List<Suspect> suspects, String reason) {
        assertThat(suspects).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.HOST);
            assertThat(s.host()).isEqualTo("10.0.0.3");
            assertThat(s.reason()).contains(reason);
        });
    }

    @Test
    void aHealthyGroupHasNoSuspects() {
        Random noise = new Random(7);
        for (int run = 0; run < 200; run++) {
            assertThat(FINDER.find(PLACES, solo(noise, -1), pairs(noise, (a, b) -> 1.0), Map.of(), 0))
                    .as("run %d", run).isEmpty();
        }
    }

    @Test
    void oneSlowRankOfFourIsNamedThoughItIsInHalfOfThePairs() {
        List<RankPlace> places = IntStream.range(0, 4).mapToObj(r -> new RankPlace(r, "h" + r, "cpu")).toList();
        Random noise = new Random(3);
        Map<Pair, Double> pairs = new HashMap<>();
        for (List<Pair> round : PairSchedule.roundRobin(4).rounds()) {
            for (Pair p : round) {
                pairs.put(p, (p.has(2) ? 0.01 : 1.0) * (1 + 0.3 * noise.nextGaussian()));
            }
        }
        assertThat(FINDER.find(places, Map.of(), pairs, Map.of(), 0)).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.RANK);
            assertThat(s.rank()).isEqualTo(2);
            assertThat(s.reason()).contains("its pairs' median");
        });
    }

    @Test
    void aHostAlmostCutOffInANoisyGroupIsTheOneSuspectItsLateRankEvidenceAgainstIt() {
        Random noise = new Random(5);
        Map<Pair, Double> pairs = new HashMap<>();
        for (List<Pair> round : PairSchedule.roundRobin(8).rounds()) {
            for (Pair p : round) {
                boolean across = (p.low() / 2 == 2) != (p.high() / 2 == 2);
                // ranks sharing cores: +-40%; the throttled host's link: 0.3% of the others
                pairs.put(p, (across ? 0.003 : 1.0) * Math.max(0.2, 1 + 0.4 * noise.nextGaussian()));
            }
        }
        List<Suspect> suspects = FINDER.find(PLACES, Map.of(), pairs, Map.of(5, 6), 6);
        assertTheOneSuspectIsHost3(suspects, "rank 5 arrived last at the all-reduce in 6 of 6 sizes");
    }

    @Test
    void lastAtTwoOfThreeSizesIsChanceNotASuspect() {
        Random noise = new Random(9);
        assertThat(FINDER.find(PLACES, solo(noise, -1), pairs(noise, (a, b) -> 1.0), Map.of(2, 2), 3)).isEmpty();
        assertThat(SuspectFinder.chanceOfAtLeast(2, 3, 0.125)).isCloseTo(0.04297, org.assertj.core.api.Assertions.within(1e-4));
    }

    @Test
    void aThrottledHostIsNamedAsTheHost() {
        Random noise = new Random(11);
        // host 10.0.0.3 (ranks 4 and 5): slow to every other host, fine between its own ranks
        var pairs = pairs(noise, (a, b) -> (a / 2 == 2) != (b / 2 == 2) ? 0.2 : 1.0);
        List<Suspect> suspects = FINDER.find(PLACES, solo(noise, -1), pairs, Map.of(), 0);
        assertTheOneSuspectIsHost3(suspects, "every rank on 10.0.0.3");
    }

    @Test
    void aSlowRankIsNamedFromItsSoloFigureAndPairs() {
        Random noise = new Random(13);
        var pairs = pairs(noise, (a, b) -> a == 6 || b == 6 ? 0.5 : 1.0);
        List<Suspect> suspects = FINDER.find(PLACES, solo(noise, 6), pairs, Map.of(), 0);
        assertThat(suspects).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.RANK);
            assertThat(s.rank()).isEqualTo(6);
            assertThat(s.reason()).contains("alone:").contains("slow with 7 of 7 peers");
        });
    }

    @Test
    void oneSlowPairIsALink() {
        Random noise = new Random(17);
        var pairs = pairs(noise, (a, b) -> a == 1 && b == 6 ? 0.3 : 1.0);
        assertThat(FINDER.find(PLACES, solo(noise, -1), pairs, Map.of(), 0)).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.LINK);
            assertThat(s.rank()).isEqualTo(1);
            assertThat(s.peerRank()).isEqualTo(6);
        });
    }

    @Test
    void slowPairsAreTheOutliersOfTheLinkRuleTheSlowestFirst() {
        Random noise = new Random(23);
        var pairs = pairs(noise, (a, b) -> a == 1 && b == 6 ? 0.3 : a == 2 && b == 5 ? 0.1 : 1.0);
        assertThat(FINDER.slowPairs(pairs)).containsExactly(Pair.of(2, 5), Pair.of(1, 6));
        assertThat(FINDER.find(PLACES, Map.of(), pairs, Map.of(), 0)).allSatisfy(s ->
                assertThat(s.kind()).isEqualTo(Suspect.Kind.LINK))
                .extracting(s -> Pair.of(s.rank(), s.peerRank())).containsExactly(Pair.of(1, 6), Pair.of(2, 5));
        assertThat(FINDER.slowPairs(pairs(noise, (a, b) -> 1.0))).isEmpty();
        assertThat(FINDER.slowPairs(Map.of(Pair.of(0, 1), 1.0, Pair.of(0, 2), 0.01))).as("no majority").isEmpty();
        // 70% short: an outlier at the default shortfall, none at 0.8
        assertThat(new SuspectFinder(new Thresholds(3.5, 0.8, 0.5, 0.5)).slowPairs(pairs))
                .containsExactly(Pair.of(2, 5));
    }

    @Test
    void everyLinkSuspectIsASlowPair() {
        Random noise = new Random(29);
        for (int run = 0; run < 200; run++) {
            int a = noise.nextInt(8);
            int b = noise.nextInt(8);
            double slow = 0.05 + 0.9 * noise.nextDouble();
            var pairs = pairs(noise, (l, h) -> Pair.of(a, b == a ? (a + 1) % 8 : b).equals(Pair.of(l, h)) ? slow : 1.0);
            List<Pair> slowPairs = FINDER.slowPairs(pairs);
            List<Pair> links = FINDER.find(PLACES, Map.of(), pairs, Map.of(), 0).stream()
                    .filter(s -> s.kind() == Suspect.Kind.LINK).map(s -> Pair.of(s.rank(), s.peerRank())).toList();
            assertThat(slowPairs).as("run %d", run).containsAll(links);
            assertThat(links).as("run %d: one slow pair of 28 is a link", run).containsExactlyElementsOf(slowPairs);
        }
    }

    @Test
    void aRankThatArrivesLastAtMostSizesIsLate() {
        Random noise = new Random(19);
        List<Suspect> suspects = FINDER.find(PLACES, solo(noise, -1), pairs(noise, (a, b) -> 1.0),
                Map.of(3, 9, 0, 1), 12);
        assertThat(suspects).singleElement().satisfies(s -> {
            assertThat(s.rank()).isEqualTo(3);
            assertThat(s.kind()).isEqualTo(Suspect.Kind.STRAGGLER);
            assertThat(s.reason()).contains("arrived last").contains("9 of 12");
        });
    }

    /** Waits at {@code barriers} lock-step barriers of 8 ranks: noise of up to 2 ms, and {@code stall} for rank 5. */
    private static List<List<Double>> waits(Random noise, int barriers, java.util.function.IntPredicate stalls,
                                            double stallMicros) {
        List<List<Double>> waits = new java.util.ArrayList<>();
        for (int r = 0; r < 8; r++) {
            waits.add(new java.util.ArrayList<>());
        }
        for (int b = 0; b < barriers; b++) {
            boolean stall = stalls.test(b);
            for (int r = 0; r < 8; r++) {
                double own = 2000 * noise.nextDouble();
                waits.get(r).add(stall && r != 5 ? own + stallMicros : stall ? 0.0 : own);
            }
        }
        return waits;
    }

    @Test
    void aRankTheOthersWaitForAtManyBarriersIsAStraggler() {
        Random noise = new Random(23);
        // 200 barriers over 1 s; rank 5 stops 50 ms at every 50th: 4 stops, 0.2 s of 1 s
        var waits = Stragglers.of(waits(noise, 200, b -> b % 50 == 7, 50_000));
        assertThat(waits.get(5).lateBarriers()).isGreaterThanOrEqualTo(4);
        List<Suspect> suspects = FINDER.find(PLACES, solo(noise, -1), pairs(noise, (a, b) -> 1.0), Map.of(), 0,
                waits, 1.0);
        assertThat(suspects).singleElement().satisfies(s -> {
            assertThat(s.kind()).isEqualTo(Suspect.Kind.STRAGGLER);
            assertThat(s.rank()).isEqualTo(5);
            assertThat(s.reason()).contains("the others waited 0.2").contains("of 200 barriers");
        });
    }

    @Test
    void waitsSpreadOverEveryRankNameNoStraggler() {
        Random noise = new Random(29);
        for (int run = 0; run < 100; run++) {
            List<List<Double>> raw = waits(noise, 200, b -> false, 0);
            // busy moments of the shared host: some rank late by 10 ms at 4 barriers, below the 5% stall share
            // even when all 4 fall on one rank
            for (int i = 0; i < 4; i++) {
                raw.get(noise.nextInt(8)).set(noise.nextInt(200), 0.0);
                int b = noise.nextInt(200);
                for (int r = 0; r < 8; r++) {
                    raw.get(r).set(b, raw.get(r).get(b) + 10_000);
                }
                raw.get(noise.nextInt(8)).set(b, 0.0);
            }
            // at most the rank waited for most, a candidate that the worker's probes clear or confirm
            assertThat(FINDER.stragglers(Stragglers.of(raw), 1.0)).as("run %d", run).hasSizeLessThanOrEqualTo(1);
        }
    }

    @Test
    void theRankWaitedForMostIsACandidateByTheShareAloneWhereJitterHidesItsStops() {
        // a crowded host: every rank late now and then, 3 of them 8% of the time; rank 2 stopped for 12%, within
        // 3.5 deviations of the others
        List<Stragglers.RankWaits> waits = new java.util.ArrayList<>();
        double[] caused = {0.079, 0.023, 0.120, 0.078, 0.076, 0.065, 0.038, 0.057};
        for (int r = 0; r < caused.length; r++) {
            waits.add(new Stragglers.RankWaits(r, caused[r], 10, 120, 0.5));
        }
        assertThat(FINDER.stragglers(waits, 1.0)).containsExactly(2);
        caused[2] = 0.105; // 4% beyond the others' median: nobody
        waits.set(2, new Stragglers.RankWaits(2, caused[2], 10, 120, 0.5));
        assertThat(FINDER.stragglers(waits, 1.0)).isEmpty();
    }

    @Test
    void aRankLateOnlyBehindTheOneEveryoneWaitsForIsNotAStraggler() {
        Random noise = new Random(31);
        // rank 5 is last at every barrier, 40 ms behind; rank 2 arrives 20 ms behind the rest at every 10th
        List<List<Double>> raw = waits(noise, 200, b -> true, 40_000);
        for (int b = 3; b < 200; b += 10) {
            raw.get(2).set(b, raw.get(2).get(b) - 20_000);
        }
        var waits = Stragglers.of(raw);
        assertThat(waits.get(2).causedSeconds()).isZero();
        assertThat(FINDER.stragglers(waits, 8.0)).containsExactly(5);
    }

    @Test
    void theTwoEndsOfASlowExchangeShareItsCostSoAPartnerOfASlowHostIsNoStraggler() {
        // ranks 4 and 5 share a slow host: each round they exchange with a new partner while the rest wait; rank 1
        // (in the two longest rounds) arrives last, a fraction of a millisecond behind its partner
        int[] partners = {0, 1, 2, 3, 6, 7};
        List<List<Double>> raw = new java.util.ArrayList<>();
        for (int r = 0; r < 8; r++) {
            raw.add(new java.util.ArrayList<>());
        }
        for (int b = 0; b < 6; b++) {
            int p4 = partners[b], p5 = partners[(b + 3) % 6];
            double micros = p4 == 1 || p5 == 1 ? 5e6 : 1e6;
            for (int r = 0; r < 8; r++) {
                boolean slowPair = r == 4 || r == 5 || r == p4 || r == p5;
                raw.get(r).add(!slowPair ? micros : r == 1 ? 0 : 300.0 + 10 * r);
            }
        }
        var waits = Stragglers.of(raw);
        assertThat(waits.get(4).causedSeconds()).isGreaterThan(waits.get(1).causedSeconds());
        assertThat(FINDER.stragglers(waits, 14.0)).doesNotContain(1);
    }

    @Test
    void twoRanksNameTheOneTheOtherWaitedFor() {
        List<List<Double>> raw = List.of(List.of(0.0, 80_000.0, 0.0, 80_000.0), List.of(80_000.0, 0.0, 80_000.0, 0.0));
        assertThat(FINDER.stragglers(Stragglers.of(raw), 1.0)).isEmpty();
        raw = List.of(List.of(0.0, 0.0, 0.0, 0.0), List.of(80_000.0, 80_000.0, 80_000.0, 10.0));
        var waits = Stragglers.of(raw);
        assertThat(waits.getFirst().causedSeconds()).isCloseTo(0.24001, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(FINDER.stragglers(waits, 1.0)).containsExactly(0);
    }

    @Test
    void aUniformGroupWithTinyDifferencesIsHealthy() {
        // MAD of 0: only a real shortfall may flag
        Map<Integer, Double> solo = new HashMap<>();
        for (int r = 0; r < 8; r++) {
            solo.put(r, r == 2 ? 2.9 : 3.0);
        }
        assertThat(FINDER.find(PLACES, solo, Map.of(), Map.of(), 0)).isEmpty();
    }
}
