package io.allsum.model.validate;

import io.allsum.model.validate.ValidationResult.PairFigure;
import io.allsum.model.validate.HostPairs.HostPair;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HostPairsTest {

    /** 3 hosts x 2 ranks (rank r on host r / 2); every pair 1.0 GB/s but those with a rank of host c, 0.1. */
    private static List<PairFigure> pairs(int ranks) {
        List<PairFigure> out = new ArrayList<>();
        for (int a = 0; a < ranks; a++) {
            for (int b = a + 1; b < ranks; b++) {
                boolean slow = a / 2 == 2 || b / 2 == 2;
                out.add(new PairFigure(a, b, slow ? 0.1 : 1.0 + 0.01 * (a + b), 10));
            }
        }
        return out;
    }

    private static List<RankPlace> places(int ranks) {
        List<RankPlace> out = new ArrayList<>();
        for (int r = ranks - 1; r >= 0; r--) {
            out.add(new RankPlace(r, "host-" + (char) ('a' + r / 2), "cpu"));
        }
        return out;
    }

    @Test
    void everyHostPairOnceInTheOrderOfTheHostsLowestRankWithTheMedianAndLowestOfItsRankPairs() {
        List<HostPair> hosts = HostPairs.of(places(6), pairs(6));

        assertThat(hosts).extracting(h -> h.host() + "-" + h.peerHost() + " " + h.pairs())
                .containsExactly("host-a-host-a 1", "host-a-host-b 4", "host-a-host-c 4", "host-b-host-b 1",
                        "host-b-host-c 4", "host-c-host-c 1");
        HostPair ab = hosts.get(1);
        assertThat(ab.medianGBps()).isCloseTo(1.03, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(ab.lowestGBps()).isCloseTo(1.02, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(hosts).filteredOn(h -> h.peerHost().equals("host-c")).allSatisfy(h ->
                assertThat(h.medianGBps()).isEqualTo(0.1));
    }

    @Test
    void noneForOneHostOrOneRankPerHost() {
        assertThat(HostPairs.of(List.of(new RankPlace(0, "h", "cpu"), new RankPlace(1, "h", "cpu"),
                new RankPlace(2, "h", "cpu")), pairs(3))).isEmpty();
        assertThat(HostPairs.of(List.of(new RankPlace(0, "a", "cpu"), new RankPlace(1, "b", "cpu"),
                new RankPlace(2, "c", "cpu")), pairs(3))).isEmpty();
    }
}
