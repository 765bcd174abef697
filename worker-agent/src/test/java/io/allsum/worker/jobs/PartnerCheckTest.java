package io.allsum.worker.jobs;

import io.allsum.model.validate.RankValidation.Confirmation;
import io.allsum.model.validate.PairSchedule.Pair;
import io.allsum.model.validate.Suspect;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class PartnerCheckTest {

    private static final int P = 6;
    private static final int Q = 7;

    private static Suspect straggler(int rank) {
        return new Suspect(rank, "h", "cpu", Suspect.Kind.STRAGGLER, -1, "late");
    }

    /** 8 ranks, 2 per host. */
    private static final List<String> HOSTS = List.of("h0", "h0", "h1", "h1", "h2", "h2", "h3", "h3");

    /** Every planned probe good but those listed. */
    private static List<Confirmation> judge(List<Suspect> suspects, Set<Pair> badPairs) {
        return judge(suspects, badPairs, HOSTS);
    }

    /** The decisions and, as they stand before they are measured again, the rechecks'. */
    private static List<Confirmation> judge(List<Suspect> suspects, Set<Pair> badPairs, List<String> hosts) {
        PartnerCheck.Verdict v = verdict(suspects, badPairs, hosts);
        List<Confirmation> out = new java.util.ArrayList<>(v.confirmations());
        v.rechecks().forEach(r -> out.add(r.provisional()));
        return out;
    }

    private static PartnerCheck.Verdict verdict(List<Suspect> suspects, Set<Pair> badPairs, List<String> hosts) {
        PartnerCheck.Plan plan = PartnerCheck.plan(suspects, List.of(P, Q, 5));
        Map<Pair, Boolean> bad = new HashMap<>();
        plan.pairs().forEach(p -> bad.put(p, badPairs.contains(p)));
        return PartnerCheck.judge(plan, hosts, bad, p -> p.low() + "-" + p.high(), "the median");
    }

    @Test
    void theTwoPartnersAreMeasuredWithEachOtherToo() {
        PartnerCheck.Plan plan = PartnerCheck.plan(List.of(straggler(1), straggler(2)), List.of(P, Q));
        assertThat(plan.pairs()).containsExactly(Pair.of(1, P), Pair.of(1, Q), Pair.of(2, P), Pair.of(2, Q),
                Pair.of(P, Q));
        assertThat(PartnerCheck.plan(List.of(straggler(1)), List.of(P))).isNull();
    }

    @Test
    void aRankBadWithTwoPartnersThatAreFineWithEachOtherIsConfirmed() {
        List<Confirmation> out = judge(List.of(straggler(1)), Set.of(Pair.of(1, P), Pair.of(1, Q)));
        assertThat(out).singleElement().satisfies(c -> {
            assertThat(c.key()).isEqualTo("straggler/1/-1");
            assertThat(c.confirmed()).isTrue();
            assertThat(c.foundRank()).isNull();
            assertThat(c.how()).startsWith("confirmed with known-good partners, against the median: 1-6; 1-7");
        });
    }

    @Test
    void aRankFineWithOnePartnerIsNotConfirmed() {
        assertThat(judge(List.of(straggler(1)), Set.of(Pair.of(1, P))))
                .singleElement().satisfies(c -> assertThat(c.confirmed()).isFalse());
    }

    @Test
    void aPartnerThatStallsIsNamedInsteadOfTheRanksItMadeLookBad() {
        // P was taken for known-good, but stops: every probe with it is bad, Q is fine with the suspects
        List<Confirmation> out = judge(List.of(straggler(1), straggler(2)),
                Set.of(Pair.of(1, P), Pair.of(2, P), Pair.of(P, Q)));
        assertThat(out).filteredOn(c -> c.foundRank() == null).allSatisfy(c -> assertThat(c.confirmed()).isFalse());
        assertThat(out).filteredOn(c -> c.foundRank() != null).singleElement().satisfies(c -> {
            assertThat(c.foundRank()).isEqualTo(P);
            assertThat(c.key()).isEqualTo("rank/6/-1");
            assertThat(c.confirmed()).isTrue();
            assertThat(c.how()).startsWith("found while confirming").contains("1-6; 2-6; 6-7");
        });
    }

    @Test
    void aFoundPartnerStandsOnlyWhenBadAgainWithClearedRanksOfTwoHosts() {
        PartnerCheck.Recheck found = new PartnerCheck.Recheck(new Confirmation("rank/6/-1", true,
                "found while confirming: 1-6; 6-7", P), P, 2, Set.of(P));
        Map<PartnerCheck.Recheck, List<Pair>> again = PartnerCheck.recheckPlan(List.of(found), List.of(6, 3, 1, 0, 7),
                Set.of(1, 0, 7), HOSTS);
        assertThat(again).as("1 and 0 share a host").containsExactly(Map.entry(found, List.of(Pair.of(1, P),
                Pair.of(P, Q))));
        Map<Pair, Boolean> stillBad = Map.of(Pair.of(1, P), true, Pair.of(P, Q), true);
        Map<Pair, Boolean> fineNow = Map.of(Pair.of(1, P), true, Pair.of(P, Q), false);
        assertThat(PartnerCheck.recheck(found, again.get(found), stillBad, p -> p.low() + "-" + p.high()))
                .satisfies(c -> {
                    assertThat(c.confirmed()).isTrue();
                    assertThat(c.foundRank()).isEqualTo(P);
                    assertThat(c.how()).endsWith("measured again with cleared ranks, slow or stalled again: 1-6; 6-7");
                });
        assertThat(PartnerCheck.recheck(found, again.get(found), fineNow, p -> "x").confirmed()).isFalse();
        assertThat(PartnerCheck.recheckPlan(List.of(found), List.of(6, 3, 1, 0, 7), Set.of(1, 0), HOSTS)).isEmpty();
        assertThat(PartnerCheck.recheck(found, null, Map.of(), p -> "x").confirmed()).isFalse();
    }

    @Test
    void aSuspectBadWithOnlyOneClearedPartnerIsMeasuredOnceMoreWithAnotherClearedRank() {
        // P stalls (found), and the suspect's probe with Q, cleared by rank 2, was bad too: one more probe decides
        PartnerCheck.Verdict v = verdict(List.of(straggler(1), straggler(2)),
                Set.of(Pair.of(1, P), Pair.of(1, Q), Pair.of(2, P), Pair.of(P, Q)), HOSTS);
        assertThat(v.confirmations()).singleElement().satisfies(c -> {
            assertThat(c.key()).isEqualTo("straggler/2/-1");
            assertThat(c.confirmed()).isFalse();
        });
        PartnerCheck.Recheck one = v.rechecks().stream().filter(r -> r.rank() == 1).findFirst().orElseThrow();
        assertThat(one.probes()).isEqualTo(1);
        assertThat(one.avoid()).containsExactlyInAnyOrder(1, Q);
        Map<PartnerCheck.Recheck, List<Pair>> again = PartnerCheck.recheckPlan(v.rechecks(), List.of(7, 2, 0, 1),
                v.cleared(), HOSTS);
        assertThat(again.get(one)).containsExactly(Pair.of(1, 2));
        assertThat(PartnerCheck.recheck(one, again.get(one), Map.of(Pair.of(1, 2), false), p -> "1-2").confirmed())
                .isFalse();
        assertThat(PartnerCheck.recheck(one, again.get(one), Map.of(Pair.of(1, 2), true), p -> "1-2").confirmed())
                .isTrue();
        assertThat(PartnerCheck.recheck(one, null, Map.of(), p -> "x")).satisfies(c -> {
            assertThat(c.confirmed()).as("nobody else to measure it with: the finding stands").isTrue();
            assertThat(c.how()).endsWith("so the finding stands");
        });
    }

    @Test
    void aPartnerBadOnlyWithRanksOfOneHostIsNotNamedForThatHostsLinkMayBeTheFault() {
        Set<Pair> bad = Set.of(Pair.of(1, P), Pair.of(2, P), Pair.of(P, Q)); // 1, 2 and 7 are cleared
        List<Suspect> two = List.of(straggler(1), straggler(2));
        List<String> sevenWithThem = List.of("h0", "h1", "h1", "h2", "h2", "h3", "h3", "h1");
        assertThat(judge(two, bad, sevenWithThem)).noneMatch(c -> c.foundRank() != null);
        assertThat(judge(two, bad, HOSTS)).as("1, 2 and 7 on three hosts").anyMatch(c -> c.foundRank() != null);
        assertThat(judge(two, bad, java.util.Collections.nCopies(8, "one"))).as("one host: two ranks suffice")
                .anyMatch(c -> c.foundRank() != null);
    }

    @Test
    void aPartnerBadWithOnlyOneClearedRankIsNotNamed() {
        // the suspect is bad with Q too, so only Q's pair with P clears nobody: nothing to judge P by
        List<Confirmation> out = judge(List.of(straggler(1)), Set.of(Pair.of(1, P), Pair.of(1, Q), Pair.of(P, Q)));
        assertThat(out).singleElement().satisfies(c -> {
            assertThat(c.confirmed()).isTrue();
            assertThat(c.how()).startsWith("not cleared: both partners were slow with each other too (6-7)");
        });
    }

    @Test
    void aLinkIsConfirmedWhenSlowAgainWhileEachEndIsFineWithAPartner() {
        Suspect link = new Suspect(1, "h", "cpu", Suspect.Kind.LINK, 2, "slow pair");
        assertThat(judge(List.of(link), Set.of(Pair.of(1, 2)))).singleElement()
                .satisfies(c -> assertThat(c.confirmed()).isTrue());
        assertThat(judge(List.of(link), Set.of(Pair.of(1, 2), Pair.of(2, Q)))).singleElement()
                .satisfies(c -> assertThat(c.confirmed()).isFalse());
    }
}
