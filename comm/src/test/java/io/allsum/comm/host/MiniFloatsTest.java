package io.allsum.comm.host;

import io.allsum.testing.SeededProperty;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.SplittableRandom;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The 8/16-bit conversions against values worked out from the bit fields, and round-to-nearest-even properties over
 * generated floats (see {@link SeededProperty} for seeds and tries) and over the edge values, written out.
 */
class MiniFloatsTest {

    @Test
    void e4m3DecodesTheOcpBitFields() {
        assertThat(MiniFloats.e4m3ToFloat((byte) 0x7E)).isEqualTo(448f);        // S.1111.110: largest finite
        assertThat(MiniFloats.e4m3ToFloat((byte) 0x7F)).isNaN();                // S.1111.111: NaN
        assertThat(MiniFloats.e4m3ToFloat((byte) 0x38)).isEqualTo(1f);          // exponent 7 = bias
        assertThat(MiniFloats.e4m3ToFloat((byte) 0x01)).isEqualTo(0x1p-9f);     // smallest subnormal
        assertThat(MiniFloats.e4m3ToFloat((byte) 0xC4)).isEqualTo(-3f);         // 1.1000.100 = -1.5 * 2
    }

    @Test
    void e5m2DecodesLikeIeee() {
        assertThat(MiniFloats.e5m2ToFloat((byte) 0x7B)).isEqualTo(57344f);
        assertThat(MiniFloats.e5m2ToFloat((byte) 0x7C)).isEqualTo(Float.POSITIVE_INFINITY);
        assertThat(MiniFloats.e5m2ToFloat((byte) 0xFC)).isEqualTo(Float.NEGATIVE_INFINITY);
        assertThat(MiniFloats.e5m2ToFloat((byte) 0x7D)).isNaN();
        assertThat(MiniFloats.e5m2ToFloat((byte) 0x3C)).isEqualTo(1f);
        assertThat(MiniFloats.e5m2ToFloat((byte) 0x01)).isEqualTo(0x1p-16f);
    }

    @Test
    void everyFp8CodeRoundTrips() {
        for (int code = 0; code < 256; code++) {
            float e4 = MiniFloats.e4m3ToFloat((byte) code);
            if (!Float.isNaN(e4)) {
                assertThat(MiniFloats.floatToE4m3(e4) & 0xFF).as("e4m3 code %02x", code).isEqualTo(code);
            }
            float e5 = MiniFloats.e5m2ToFloat((byte) code);
            if (!Float.isNaN(e5)) {
                assertThat(MiniFloats.floatToE5m2(e5) & 0xFF).as("e5m2 code %02x", code).isEqualTo(code);
            }
        }
    }

    @Test
    void e4m3SaturatesAndE5m2OverflowsToInfinity() {
        assertThat(MiniFloats.floatToE4m3(1e6f)).isEqualTo((byte) 0x7E);
        assertThat(MiniFloats.floatToE4m3(Float.NEGATIVE_INFINITY)).isEqualTo((byte) 0xFE);
        assertThat(MiniFloats.e4m3ToFloat(MiniFloats.floatToE4m3(Float.NaN))).isNaN();
        assertThat(MiniFloats.floatToE5m2(1e6f)).isEqualTo((byte) 0x7C);
        assertThat(MiniFloats.floatToE5m2(60000f)).isEqualTo((byte) 0x7B); // below the midpoint 61440
        assertThat(MiniFloats.e5m2ToFloat(MiniFloats.floatToE5m2(Float.NaN))).isNaN();
    }

    @Test
    void tiesRoundToTheEvenCode() {
        assertThat(MiniFloats.e4m3ToFloat(MiniFloats.floatToE4m3(1.0625f))).isEqualTo(1f);    // between 1 and 1.125
        assertThat(MiniFloats.e4m3ToFloat(MiniFloats.floatToE4m3(1.1875f))).isEqualTo(1.25f); // between 1.125, 1.25
        assertThat(MiniFloats.e5m2ToFloat(MiniFloats.floatToE5m2(1.125f))).isEqualTo(1f);
        assertThat(MiniFloats.bfloat16ToFloat(MiniFloats.floatToBfloat16(1f + 0x1p-8f))).isEqualTo(1f);
        assertThat(MiniFloats.bfloat16ToFloat(MiniFloats.floatToBfloat16(1f + 3 * 0x1p-8f))).isEqualTo(1f + 0x1p-6f);
    }

    @Test
    void e4m3PicksANearestCode() {
        SeededProperty.forAll(r -> floatWithin(r, MiniFloats.E4M3_MAX), x -> assertNearest(x, Format.E4M3));
    }

    @Test
    void e5m2PicksANearestCode() {
        SeededProperty.forAll(r -> floatWithin(r, MiniFloats.E5M2_MAX), x -> assertNearest(x, Format.E5M2));
    }

    @Test
    void bfloat16IsOneOfTheTwoNeighboursAndTheNearer() {
        SeededProperty.forAll(r -> Float.intBitsToFloat(r.nextInt()), MiniFloatsTest::assertBfloat16Nearest);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(floats = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 0x1p-10f, 0x1p-9f, 1f,
            0x1.bffffep8f, 448f, -448f})
    void e4m3PicksANearestCodeAtTheEdges(float x) {
        assertNearest(x, Format.E4M3);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(floats = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 0x1p-17f, 0x1p-16f, 1f,
            0x1.bffffep15f, 57344f, -57344f})
    void e5m2PicksANearestCodeAtTheEdges(float x) {
        assertNearest(x, Format.E5M2);
    }

    /** Every tie between two finite codes, and the floats either side of it: where rounding goes wrong. */
    @ParameterizedTest
    @EnumSource(Format.class)
    void everyMidpointBetweenCodesRoundsToTheEvenCodeAndItsNeighboursToTheNearer(Format format) {
        for (int code = 0; code < format.maxCode; code++) {
            float low = format.decode((byte) code);
            float high = format.decode((byte) (code + 1));
            float midpoint = (low + high) / 2;
            for (float sign : new float[] {1f, -1f}) {
                float tie = sign * midpoint;
                assertThat(format.encode(tie) & 1).as("%s tie %s", format, tie).isZero();
                assertNearest(Math.nextDown(tie), format);
                assertNearest(tie, format);
                assertNearest(Math.nextUp(tie), format);
            }
        }
    }

    /** Zeros, subnormals, the largest finite value, infinities, NaNs (one with a low payload), and ties. */
    @ParameterizedTest(name = "bits {0}")
    @ValueSource(ints = {0x00000000, 0x80000000, 0x00000001, 0x00008000, 0x00018000, 0x00800000, 0x7F7F8000,
            0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0xFF800001, 0x3F807FFF,
            0x3F808000, 0x3F818000})
    void bfloat16IsOneOfTheTwoNeighboursAndTheNearerAtTheEdges(int bits) {
        assertBfloat16Nearest(Float.intBitsToFloat(bits));
    }

    private enum Format {
        E4M3(0x7E), E5M2(0x7B);

        /** The code of the largest finite value; codes 0 to maxCode increase in value. */
        final int maxCode;

        Format(int maxCode) {
            this.maxCode = maxCode;
        }

        float decode(byte code) {
            return this == E4M3 ? MiniFloats.e4m3ToFloat(code) : MiniFloats.e5m2ToFloat(code);
        }

        byte encode(float x) {
            return this == E4M3 ? MiniFloats.floatToE4m3(x) : MiniFloats.floatToE5m2(x);
        }
    }

    /** Half the draws uniform in value, half uniform in bit pattern so that every binade and subnormal shows up. */
    private static float floatWithin(SplittableRandom r, float max) {
        float magnitude = r.nextBoolean()
                ? (float) r.nextDouble(0, max)
                : Float.intBitsToFloat(r.nextInt(Float.floatToIntBits(max) + 1));
        return r.nextBoolean() ? magnitude : -magnitude;
    }

    private static void assertBfloat16Nearest(float x) {
        float got = MiniFloats.bfloat16ToFloat(MiniFloats.floatToBfloat16(x));
        if (Float.isNaN(x)) {
            assertThat(got).as("bfloat16 of NaN bits %08x", Float.floatToRawIntBits(x)).isNaN();
            return;
        }
        int bits = Float.floatToRawIntBits(x);
        float down = Float.intBitsToFloat(bits & 0xFFFF0000);
        float up = Float.intBitsToFloat((bits & 0xFFFF0000) + 0x10000);
        assertThat(got).as("bfloat16 of %s", x).isIn(down, up);
        double dGot = Math.abs((double) got - x);
        double dOther = Math.abs((double) (got == down ? up : down) - x);
        if (!Float.isInfinite(got) && !Float.isInfinite(up)) {
            assertThat(dGot).as("bfloat16 of %s", x).isLessThanOrEqualTo(dOther);
        }
    }

    private static void assertNearest(float x, Format format) {
        float got = format.decode(format.encode(x));
        double best = Double.MAX_VALUE;
        for (int code = 0; code < 256; code++) {
            float c = format.decode((byte) code);
            if (!Float.isNaN(c) && !Float.isInfinite(c)) {
                best = Math.min(best, Math.abs((double) c - x));
            }
        }
        assertThat(Math.abs((double) got - x)).as("encoding %s", x).isEqualTo(best);
    }
}
