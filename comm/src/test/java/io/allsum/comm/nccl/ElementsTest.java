package io.allsum.comm.nccl;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The host reference that the GPU checks compare against. */
class ElementsTest {

    @Test
    void reducesLikeNcclAcrossRanks() {
        double[] a = {1, -3, 2};
        double[] b = {2, 3, -3};
        assertThat(Elements.reduce(ReduceOp.SUM, DataType.INT32, List.of(a, b))).containsExactly(3, 0, -1);
        assertThat(Elements.reduce(ReduceOp.PROD, DataType.INT32, List.of(a, b))).containsExactly(2, -9, -6);
        assertThat(Elements.reduce(ReduceOp.MAX, DataType.INT32, List.of(a, b))).containsExactly(2, 3, 2);
        assertThat(Elements.reduce(ReduceOp.MIN, DataType.INT32, List.of(a, b))).containsExactly(1, -3, -3);
        assertThat(Elements.reduce(ReduceOp.AVG, DataType.INT32, List.of(a, b))).containsExactly(1, 0, 0);
        assertThat(Elements.reduce(ReduceOp.AVG, DataType.FLOAT32, List.of(a, b))).containsExactly(1.5, 0, -0.5);
    }

    @Test
    void encodesHalfTypesAndFloat8Exactly() {
        assertThat(Elements.encode(DataType.FLOAT16, new double[] {1.0}).order(ByteOrder.LITTLE_ENDIAN).getShort())
                .isEqualTo((short) 0x3C00);
        assertThat(Elements.encode(DataType.BFLOAT16, new double[] {1.0}).order(ByteOrder.LITTLE_ENDIAN).getShort())
                .isEqualTo((short) 0x3F80);
        assertThat(Elements.encode(DataType.FLOAT8_E4M3, new double[] {1.0, -2.0}).get(0)).isEqualTo((byte) 0x38);
        assertThat(Elements.encode(DataType.FLOAT8_E4M3, new double[] {-2.0}).get(0)).isEqualTo((byte) 0xC0);
        assertThat(Elements.encode(DataType.FLOAT8_E5M2, new double[] {1.0}).get(0)).isEqualTo((byte) 0x3C);
        assertThat(Elements.encode(DataType.FLOAT8_E5M2, new double[] {3.0}).get(0)).isEqualTo((byte) 0x42);
    }

    @Test
    void patternsAreExactInEveryTypeAndUnsignedStaysNonNegative() {
        for (DataType type : DataType.values()) {
            double[] values = Elements.pattern(type, 50, 2);
            ByteBuffer bytes = Elements.encode(type, values);
            assertThat(bytes.remaining()).isEqualTo(50 * type.bytes());
        }
        assertThat(java.util.Arrays.stream(Elements.pattern(DataType.UINT8, 50, 2)).allMatch(v -> v >= 0 && v <= 6)).isTrue();
    }

    @Test
    void countsWrongElementsNotWrongBytes() {
        ByteBuffer expected = Elements.encode(DataType.INT32, new double[] {1, 2, 3});
        ByteBuffer actual = Elements.encode(DataType.INT32, new double[] {1, 0x0101, 3});
        assertThat(Elements.countWrong(DataType.INT32, expected, actual)).isEqualTo(1);
        assertThat(Elements.countWrong(DataType.INT32, expected, expected.duplicate())).isZero();
    }
}
