package io.allsum.model.validate;

import io.allsum.model.validate.ValidationResult.PairFigure;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The ranks {@code allsum validate --exclude} leaves out for a verdict's suspects. */
class LeftOutTest {

    /** Ranks 0..n-1, two per host (10.0.0.1, 10.0.0.1, 10.0.0.2, ...), every pair near 10 GB/s but {@code slow}. */
    private static ValidationResult verdict(int n, Map<String, Double> slow, Suspect... suspects) {
        List<RankPlace> ranks = new ArrayList<>();
        List<PairFigure> pairs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            ranks.add(new RankPlace(r, host(r), "cpu"));
            for (int q = r + 1; q < n; q++) {
                pairs.add(new PairFigure(r, q, slow.getOrDefault(r + "-" + q, 10.0 + 0.01 * (r + q)), 50));
            }
        }
        return new ValidationResult(ranks, List.of(), pairs, 1.0, List.of(), List.of(suspects),
                ValidationResult.SUSPECTS, ValidationResult.DONE, List.of(), null, List.of(), Map.of());
    }

    private static String host(int rank) {
        return "10.0.0." + (rank / 2 + 1);
    }

    private static Suspect suspect(Suspect.Kind kind, int rank, int peer) {
        return new Suspect(rank, host(rank), "cpu", kind, peer, "test");
    }

    private static LeftOut leftOut(ValidationResult v) {
        return LeftOut.of(v, Thresholds.DEFAULTS);
    }

    @Test
    void aRankSuspectLeavesItsRankOutAndAHostSuspectEveryRankOfTheHost() {
        ValidationResult v = verdict(8, Map.of(), suspect(Suspect.Kind.RANK, 1, -1), suspect(Suspect.Kind.HOST, 6, -1));

        LeftOut left = leftOut(v);

        assertThat(left.ranks()).containsExactly(1, 6, 7);
        assertThat(left.because()).containsExactly("rank 1", "host 10.0.0.4");
    }

    @Test
    void aLinkLeavesOutTheEndInMoreOutlierPairs() {
        // rank 2 is in two slow pairs, rank 0 in one: the link 0-2 costs rank 2, which also settles the link 2-3
        ValidationResult v = verdict(6, Map.of("0-2", 1.0, "2-3", 1.2), suspect(Suspect.Kind.LINK, 0, 2),
                suspect(Suspect.Kind.LINK, 2, 3));

        LeftOut left = leftOut(v);

        assertThat(left.ranks()).containsExactly(2);
        assertThat(left.because()).containsExactly("link 0-2");
    }

    @Test
    void aLinkWhoseEndsAreInAsManyOutlierPairsLeavesOutTheHigherRank() {
        ValidationResult v = verdict(6, Map.of("1-4", 1.0), suspect(Suspect.Kind.LINK, 1, 4));

        assertThat(leftOut(v).ranks()).containsExactly(4);
    }

    @Test
    void aLinkWithAnEndAlreadyLeftOutAddsNothing() {
        ValidationResult v = verdict(6, Map.of("1-4", 1.0), suspect(Suspect.Kind.RANK, 1, -1),
                suspect(Suspect.Kind.LINK, 1, 4));

        assertThat(leftOut(v).ranks()).containsExactly(1);
        assertThat(leftOut(v).because()).containsExactly("rank 1");
    }

    @Test
    void aGroupSuspectNamesNoRank() {
        ValidationResult v = verdict(4, Map.of(), new Suspect(-1, null, null, Suspect.Kind.GROUP, -1, "below 9 GB/s"));

        assertThat(leftOut(v).ranks()).isEmpty();
    }
}
