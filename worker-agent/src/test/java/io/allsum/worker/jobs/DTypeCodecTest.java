package io.allsum.worker.jobs;

import io.allsum.model.DataType;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

class DTypeCodecTest {

    @Test
    void halfDecodesEveryBitPatternLikeTheJdk() {
        for (int bits = 0; bits < 1 << 16; bits++) {
            double expected = Float.float16ToFloat((short) bits);
            double actual = DTypeCodec.decodeFloat(DataType.FLOAT16, bits);
            assertThat(Double.doubleToLongBits(actual)).as("0x%04x", bits).isEqualTo(Double.doubleToLongBits(expected));
        }
    }

    @Test
    void halfEncodesLikeTheJdkIncludingRoundingToNearestEven() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 200_000; i++) {
            float value = Float.intBitsToFloat(random.nextInt());
            if (Float.isNaN(value)) {
                continue;
            }
            long expected = Float.floatToFloat16(value) & 0xFFFF;
            assertThat(DTypeCodec.encodeFloat(DataType.FLOAT16, value)).as("%s", value).isEqualTo(expected);
        }
    }

    @Test
    void bfloat16IsTheTopHalfOfAFloat() {
        for (int bits = 0; bits < 1 << 16; bits++) {
            float expected = Float.intBitsToFloat(bits << 16);
            double actual = DTypeCodec.decodeFloat(DataType.BFLOAT16, bits);
            assertThat(Double.doubleToLongBits(actual)).as("0x%04x", bits)
                    .isEqualTo(Double.doubleToLongBits(expected));
            if (!Float.isNaN(expected)) {
                assertThat(DTypeCodec.encodeFloat(DataType.BFLOAT16, expected)).isEqualTo(bits);
            }
        }
        // 1 + 2^-8 lies halfway between 1 and 1 + 2^-7: ties go to the even significand (1).
        assertThat(DTypeCodec.encodeFloat(DataType.BFLOAT16, 1 + 0x1p-8)).isEqualTo(0x3F80);
        assertThat(DTypeCodec.encodeFloat(DataType.BFLOAT16, 1 + 0x1p-8 + 0x1p-20)).isEqualTo(0x3F81);
    }

    @Test
    void float8E4m3MatchesTheOcpDefinition() {
        DataType t = DataType.FLOAT8_E4M3;
        assertThat(DTypeCodec.decodeFloat(t, 0x38)).isEqualTo(1.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x7E)).isEqualTo(448.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x77)).isEqualTo(240.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x08)).isEqualTo(0x1p-6);
        assertThat(DTypeCodec.decodeFloat(t, 0x01)).isEqualTo(0x1p-9);
        assertThat(DTypeCodec.decodeFloat(t, 0xB8)).isEqualTo(-1.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x7F)).isNaN();
        assertThat(DTypeCodec.decodeFloat(t, 0x78)).isEqualTo(256.0);
        assertThat(DTypeCodec.encodeFloat(t, 17.0)).as("ties to even: 16").isEqualTo(0x58);
        assertThat(DTypeCodec.encodeFloat(t, 1000.0)).as("no infinity: overflow is NaN").isEqualTo(0x7F);
        assertThat(DTypeCodec.encodeFloat(t, -3.0)).isEqualTo(0xC4);
        assertEveryFiniteByteRoundTrips(t);
    }

    @Test
    void float8E5m2MatchesTheOcpDefinition() {
        DataType t = DataType.FLOAT8_E5M2;
        assertThat(DTypeCodec.decodeFloat(t, 0x3C)).isEqualTo(1.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x7B)).isEqualTo(57344.0);
        assertThat(DTypeCodec.decodeFloat(t, 0x7C)).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(DTypeCodec.decodeFloat(t, 0x7D)).isNaN();
        assertThat(DTypeCodec.decodeFloat(t, 0x04)).isEqualTo(0x1p-14);
        assertThat(DTypeCodec.decodeFloat(t, 0x01)).isEqualTo(0x1p-16);
        assertThat(DTypeCodec.encodeFloat(t, 9.0)).as("ties to even: 8").isEqualTo(0x48);
        assertThat(DTypeCodec.encodeFloat(t, 1e6)).isEqualTo(0x7C);
        assertEveryFiniteByteRoundTrips(t);
    }

    private static void assertEveryFiniteByteRoundTrips(DataType t) {
        for (int bits = 0; bits < 256; bits++) {
            double value = DTypeCodec.decodeFloat(t, bits);
            if (!Double.isNaN(value)) {
                assertThat(DTypeCodec.encodeFloat(t, value)).as("0x%02x = %s", bits, value).isEqualTo(bits);
            }
        }
    }

    @Test
    void integersAreSignOrZeroExtendedByType() {
        assertThat(DTypeCodec.decodeInteger(DataType.INT8, 0xFF)).isEqualTo(-1);
        assertThat(DTypeCodec.decodeInteger(DataType.UINT8, 0xFF)).isEqualTo(255);
        assertThat(DTypeCodec.decodeInteger(DataType.INT32, 0x8000_0000L)).isEqualTo(Integer.MIN_VALUE);
        assertThat(DTypeCodec.decodeInteger(DataType.UINT32, 0x8000_0000L)).isEqualTo(0x8000_0000L);
        assertThat(DTypeCodec.encodeInteger(DataType.INT8, -2)).isEqualTo(0xFE);
        assertThat(DTypeCodec.encodeInteger(DataType.UINT64, -1)).isEqualTo(-1L);
    }

    @Test
    void exactIntegerLimitsAreRepresentableAndTheNextOneIsNot() {
        for (DataType t : DataType.values()) {
            if (!t.isFloatingPoint()) {
                continue;
            }
            long m = DTypeCodec.maxExactInteger(t);
            for (long v = -m; v <= m; v += Math.max(1, m / 4096)) {
                assertThat(DTypeCodec.decodeFloat(t, DTypeCodec.encodeFloat(t, v))).as("%s %d", t, v).isEqualTo(v);
            }
            if (t != DataType.FLOAT64) { // m + 1 = 2^53 + 1 is not a double to begin with
                assertThat(DTypeCodec.decodeFloat(t, DTypeCodec.encodeFloat(t, m + 1))).as("%s %d", t, m + 1)
                        .isNotEqualTo((double) (m + 1));
            }
        }
    }

    @Test
    void readsAndWritesLittleEndianElements() {
        ByteBuffer buffer = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        DTypeCodec.writeBits(buffer, 2, 2, 0xABCD);
        assertThat(buffer.get(2)).isEqualTo((byte) 0xCD);
        assertThat(DTypeCodec.readBits(buffer, 2, 2)).isEqualTo(0xABCD);
        DTypeCodec.writeBits(buffer, 8, 8, -2L);
        assertThat(DTypeCodec.readBits(buffer, 8, 8)).isEqualTo(-2L);
        DTypeCodec.writeBits(buffer, 4, 4, 0xFFFF_FFFEL);
        assertThat(DTypeCodec.readBits(buffer, 4, 4)).isEqualTo(0xFFFF_FFFEL);
    }
}
