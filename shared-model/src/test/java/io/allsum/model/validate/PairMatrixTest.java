package io.allsum.model.validate;

import io.allsum.model.validate.ValidationResult.PairFigure;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class PairMatrixTest {

    @Test
    void aSlowRankShowsAsALineAndAColumnOfLowDigits() {
        List<PairFigure> pairs = new ArrayList<>();
        for (int a = 0; a < 6; a++) {
            for (int b = a + 1; b < 6; b++) {
                if (a != 0 || b != 5) {
                    pairs.add(new PairFigure(a, b, a == 2 || b == 2 ? 0.25 : 1.0, 10));
                }
            }
        }
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
        assertThat(PairMatrix.rows(6, pairs)).containsExactly(".9299?", "9.2999", "22.222", "992.99", "9929.9",
                "?9299.");
        assertThat(PairMatrix.medianGBps(pairs)).isEqualTo(1.0);
        assertThat(PairMatrix.medianGBps(List.of())).isNull();
    }
}
