package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class PairScheduleTest {

    @Test
    void everyPairExactlyOnceAndNoRankTwiceInARound() {
        for (int n = 2; n <= 65; n++) {
            PairSchedule schedule = PairSchedule.roundRobin(n);
            Set<Pair> seen = new HashSet<>();
            for (List<Pair> round : schedule.rounds()) {
                Set<Integer> busy = new HashSet<>();
                for (Pair pair : round) {
                    assertThat(pair.high()).as("n=%d", n).isLessThan(n);
                    assertThat(busy.add(pair.low()) && busy.add(pair.high()))
                            .as("n=%d: a rank in two pairs of one round: %s", n, round).isTrue();
                    assertThat(seen.add(pair)).as("n=%d: %s twice", n, pair).isTrue();
                }
                assertThat(round).as("n=%d", n).hasSize(n / 2);
            }
            assertThat(seen).as("n=%d", n).hasSize(schedule.pairCount());
            assertThat(schedule.rounds()).hasSize(n % 2 == 0 ? n - 1 : n);
        }
    }

    @Test
    void peerOfNamesTheRoundsPartnerOrNoneForTheIdleRank() {
        PairSchedule schedule = PairSchedule.roundRobin(5);
        for (int round = 0; round < schedule.rounds().size(); round++) {
            int idle = 0;
            for (int rank = 0; rank < 5; rank++) {
                int peer = schedule.peerOf(rank, round);
                if (peer < 0) {
                    idle++;
                } else {
                    assertThat(schedule.peerOf(peer, round)).isEqualTo(rank);
                }
            }
            assertThat(idle).isEqualTo(1);
        }
    }

    @Test
    void refusesAWorldOfOne() {
        assertThatThrownBy(() -> PairSchedule.roundRobin(1)).hasMessageContaining("at least 2 ranks");
    }

    @Test
    void aListOfPairsRunsInRoundsOfDisjointPairsEachPairOnceTheFirstPairFirst() {
        Random random = new Random(11);
        for (int run = 0; run < 300; run++) {
            int n = 2 + random.nextInt(15);
            List<Pair> all = new ArrayList<>(PairSchedule.roundRobin(n).rounds().stream().flatMap(List::stream)
                    .toList());
            Collections.shuffle(all, random);
            List<Pair> given = all.subList(0, random.nextInt(all.size() + 1));
            PairSchedule schedule = PairSchedule.of(n, given);
            List<Pair> seen = new ArrayList<>();
            for (List<Pair> round : schedule.rounds()) {
                assertThat(round).as("run %d: an empty round", run).isNotEmpty();
                Set<Integer> busy = new HashSet<>();
                for (Pair pair : round) {
                    assertThat(busy.add(pair.low()) && busy.add(pair.high()))
                            .as("run %d: a rank in two pairs of one round: %s", run, round).isTrue();
                    seen.add(pair);
                }
            }
            assertThat(seen).as("run %d", run).containsExactlyInAnyOrderElementsOf(given);
            assertThat(schedule.pairCount()).isEqualTo(given.size());
            assertThat(PairSchedule.of(n, given)).as("the same list, the same schedule").isEqualTo(schedule);
            if (!given.isEmpty()) {
                assertThat(schedule.rounds().getFirst().getFirst()).isEqualTo(given.getFirst());
            }
        }
    }

    @Test
    void pairsWithoutACommonRankShareARoundAndARepeatedPairRunsOnce() {
        assertThat(PairSchedule.of(6, List.of(Pair.of(0, 1), Pair.of(2, 3), Pair.of(5, 4))).rounds())
                .containsExactly(List.of(Pair.of(0, 1), Pair.of(2, 3), Pair.of(4, 5)));
        assertThat(PairSchedule.of(4, List.of(Pair.of(0, 1), Pair.of(1, 2), Pair.of(0, 1), Pair.of(2, 3))).rounds())
                .containsExactly(List.of(Pair.of(0, 1), Pair.of(2, 3)), List.of(Pair.of(1, 2)));
        assertThat(PairSchedule.of(4, List.of()).rounds()).isEmpty();
        assertThatThrownBy(() -> PairSchedule.of(3, List.of(Pair.of(1, 3))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outside 3 ranks");
    }
}
