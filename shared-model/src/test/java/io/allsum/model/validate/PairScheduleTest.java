package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.HashSet;
import java.util.List;
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
}
