package io.allsum.worker.comm.host;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.FloatRange;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The 8/16-bit conversions against values worked out from the bit fields, and round-to-nearest-even properties. */
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

    @Property
    void e4m3PicksANearestCode(@ForAll @FloatRange(min = -448f, max = 448f) float x) {
        assertNearest(x, MiniFloats.e4m3ToFloat(MiniFloats.floatToE4m3(x)), true);
    }

    @Property
    void e5m2PicksANearestCode(@ForAll @FloatRange(min = -57344f, max = 57344f) float x) {
        assertNearest(x, MiniFloats.e5m2ToFloat(MiniFloats.floatToE5m2(x)), false);
    }

    @Property
    void bfloat16IsOneOfTheTwoNeighboursAndTheNearer(@ForAll float x) {
        int bits = Float.floatToRawIntBits(x);
        float down = Float.intBitsToFloat(bits & 0xFFFF0000);
        float up = Float.intBitsToFloat((bits & 0xFFFF0000) + 0x10000);
        float got = MiniFloats.bfloat16ToFloat(MiniFloats.floatToBfloat16(x));
        assertThat(got).isIn(down, up);
        double dGot = Math.abs((double) got - x);
        double dOther = Math.abs((double) (got == down ? up : down) - x);
        if (!Float.isInfinite(got) && !Float.isInfinite(up)) {
            assertThat(dGot).isLessThanOrEqualTo(dOther);
        }
    }

    private static void assertNearest(float x, float got, boolean e4m3) {
        double best = Double.MAX_VALUE;
        for (int code = 0; code < 256; code++) {
            float c = e4m3 ? MiniFloats.e4m3ToFloat((byte) code) : MiniFloats.e5m2ToFloat((byte) code);
            if (!Float.isNaN(c) && !Float.isInfinite(c)) {
                best = Math.min(best, Math.abs((double) c - x));
            }
        }
        assertThat(Math.abs((double) got - x)).as("encoding %s", x).isEqualTo(best);
    }
}
