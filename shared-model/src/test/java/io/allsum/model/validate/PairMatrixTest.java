package io.allsum.model.validate;

import io.allsum.model.validate.PairSchedule.Pair;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

class PairMatrixTest {

    @Test
    void aSlowRankShowsAsALineAndAColumnOfLowDigits() {
        Map<Pair, Double> pairs = new HashMap<>();
        for (int a = 0; a < 6; a++) {
            for (int b = a + 1; b < 6; b++) {
                pairs.put(Pair.of(a, b), a == 2 || b == 2 ? 0.25 : 1.0);
            }
        }
        pairs.remove(Pair.of(0, 5));
        assertThat(PairMatrix.render(6, pairs)).isEqualTo("""
                # pair bandwidth, tenths of the median (1.00 GB/s); 9 = 90% or more
                #  012345
                # 0 .9299?
                # 1 9.2999
                # 2 22.222
                # 3 992.99
                # 4 9929.9
                # 5 ?9299.
                """);
    }
}
