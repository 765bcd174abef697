package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class VerificationPatternTest {

    private static final int INDEXES = 2048;

    /** Every input is representable and no partial sum, in rank order or reversed, leaves the exact range. */
    @Test
    void everyInputAndEveryPartialSumIsExactInEveryTypeUpToSixteenRanks() {
        List<String> failures = new ArrayList<>();
        for (DataType type : DataType.values()) {
            long maxExact = DTypeCodec.maxExactInteger(type);
            for (ReduceOp redop : List.of(ReduceOp.SUM, ReduceOp.AVG)) {
                for (int n = 1; n <= 16; n++) {
                    VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_REDUCE, type, redop, n, INDEXES);
                    for (int t = 0; t < INDEXES; t++) {
                        long forward = 0;
                        long backward = 0;
                        for (int r = 0; r < n; r++) {
                            forward += p.value(r, t);
                            backward += p.value(n - 1 - r, t);
                            if (Math.abs(forward) > maxExact || Math.abs(backward) > maxExact) {
                                failures.add(type + " " + redop + " n=" + n + " index " + t);
                            }
                        }
                    }
                }
            }
        }
        assertThat(failures).isEmpty();
    }

    @Test
    void floatAveragesDivideExactlySoTheExpectedValueIsAnInteger() {
        for (int n = 1; n <= 8; n++) {
            VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.FLOAT8_E5M2,
                    ReduceOp.AVG, n, INDEXES);
            for (int t = 0; t < INDEXES; t++) {
                long sum = 0;
                for (int r = 0; r < n; r++) {
                    sum += p.value(r, t);
                }
                assertThat(sum % n).as("n=%d index %d", n, t).isZero();
            }
        }
    }

    @Test
    void productsStayWithinFourInMagnitude() {
        for (int n = 1; n <= 16; n++) {
            VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.INT8, ReduceOp.PROD, n,
                    INDEXES);
            for (int t = 0; t < INDEXES; t++) {
                long product = 1;
                for (int r = 0; r < n; r++) {
                    product *= p.value(r, t);
                }
                assertThat(Math.abs(product)).isBetween(1L, 4L);
            }
        }
    }

    @Test
    void unsignedMaxDiffersFromASignedComparison() {
        VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.UINT8, ReduceOp.MAX, 4,
                INDEXES);
        long[] expected = p.reducedTable();
        int caught = 0;
        for (int t = 0; t < INDEXES; t++) {
            byte signedMax = Byte.MIN_VALUE;
            for (int r = 0; r < 4; r++) {
                signedMax = (byte) Math.max(signedMax, (byte) p.value(r, t));
            }
            if ((signedMax & 0xFF) != expected[t]) {
                caught++;
            }
        }
        assertThat(caught).isGreaterThan(INDEXES / 2);
    }

    @Test
    void integerAverageTruncatesNegativeSumsTowardZero() {
        VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.INT32, ReduceOp.AVG, 3,
                INDEXES);
        long[] expected = p.reducedTable();
        int negativeRemainders = 0;
        for (int t = 0; t < INDEXES; t++) {
            long sum = p.value(0, t) + p.value(1, t) + p.value(2, t);
            assertThat(DTypeCodec.decodeInteger(DataType.INT32, expected[t])).isEqualTo(sum / 3);
            if (sum < 0 && sum % 3 != 0) {
                negativeRemainders++;
            }
        }
        assertThat(negativeRemainders).as("the pattern must exercise truncation of negative sums").isPositive();
    }

    @Test
    void ranksFeedDifferentDataSoMisplacedBlocksAreCaught() {
        for (DataType type : DataType.values()) {
            VerificationPattern p = new VerificationPattern(CollectiveOp.ALL_GATHER, type, ReduceOp.SUM, 8, INDEXES);
            long[] rank0 = p.inputTable(0);
            long[] rank1 = p.inputTable(1);
            int same = 0;
            for (int t = 0; t < INDEXES; t++) {
                if (rank0[t] == rank1[t]) {
                    same++;
                }
            }
            assertThat(same).as("%s", type).isLessThan(INDEXES / 8);
        }
    }

    @Test
    void exactAveragesNeedNoToleranceWhenTheWorldSizeIsAPowerOfTwo() {
        for (int n : new int[]{1, 2, 4, 8}) {
            assertThat(new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.FLOAT16, ReduceOp.AVG, n, INDEXES)
                    .toleranceTable()).isNull();
        }
        assertThat(new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.FLOAT16, ReduceOp.AVG, 3, INDEXES)
                .toleranceTable()).isNotNull();
        assertThat(new VerificationPattern(CollectiveOp.ALL_REDUCE, DataType.INT8, ReduceOp.AVG, 3, INDEXES)
                .toleranceTable()).isNull();
    }
}
