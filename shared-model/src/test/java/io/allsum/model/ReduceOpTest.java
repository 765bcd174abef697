package io.allsum.model;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

class ReduceOpTest {

    @ParameterizedTest
    @CsvSource({"SUM, -1.5", "AVG, -1.5", "PROD, -10", "MAX, 2.5", "MIN, -4"})
    void combinesTwoValuesAndLeavesTheAverageDivisionToTheCaller(ReduceOp op, double expected) {
        assertThat(op.combine(2.5, -4)).isEqualTo(expected);
    }
}
