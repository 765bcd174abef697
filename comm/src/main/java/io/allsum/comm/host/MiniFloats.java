package io.allsum.comm.host;

/**
 * Conversions between float and the 8/16-bit float formats that collectives carry: bfloat16, and the OCP FP8
 * formats as NCCL and CUDA's {@code __nv_fp8} define them. float16 uses the JDK's {@link Float#float16ToFloat}.
 * Every encoder rounds to nearest, ties to even.
 */
public final class MiniFloats {

    /** e4m3 has no infinities: S.1111.111 is NaN, the largest finite value is 448 and overflow saturates to it. */
    public static final float E4M3_MAX = 448f;
    /** e5m2 is IEEE-like: exponent 31 holds infinities and NaNs, the largest finite value is 57344. */
    public static final float E5M2_MAX = 57344f;

    private static final byte E4M3_NAN = 0x7F;
    private static final byte E5M2_NAN = 0x7E;
    private static final float[] E4M3_TABLE = new float[256];
    private static final float[] E5M2_TABLE = new float[256];

    static {
        for (int b = 0; b < 256; b++) {
            E4M3_TABLE[b] = decode(b, 4, 3, 7, false);
            E5M2_TABLE[b] = decode(b, 5, 2, 15, true);
        }
    }

    private MiniFloats() {
    }

    public static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    public static short floatToBfloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            // keep the sign and a quiet NaN: truncation alone could turn a NaN with low payload into infinity
            return (short) ((bits >>> 16) | 0x40);
        }
        int roundingBias = 0x7FFF + ((bits >>> 16) & 1);
        return (short) ((bits + roundingBias) >>> 16);
    }

    public static float e4m3ToFloat(byte bits) {
        return E4M3_TABLE[bits & 0xFF];
    }

    public static float e5m2ToFloat(byte bits) {
        return E5M2_TABLE[bits & 0xFF];
    }

    /** Saturating (like {@code __NV_SATFINITE}): |x| > 448 and infinities become ±448; NaN stays NaN. */
    public static byte floatToE4m3(float value) {
        if (Float.isNaN(value)) {
            return E4M3_NAN;
        }
        int sign = Float.floatToRawIntBits(value) < 0 ? 0x80 : 0;
        if (Math.abs(value) >= E4M3_MAX) {
            return (byte) (sign | 0x7E);
        }
        int magnitude = encodeMagnitude(value, 3, 7);
        // rounding up from just below 448 lands on 0x7E at most, since 464 (the midpoint to 480) is never reached here
        return (byte) (sign | Math.min(magnitude, 0x7E));
    }

    /** IEEE-like: finite values that round above 57344 become ±infinity. */
    public static byte floatToE5m2(float value) {
        if (Float.isNaN(value)) {
            return E5M2_NAN;
        }
        int sign = Float.floatToRawIntBits(value) < 0 ? 0x80 : 0;
        if (Float.isInfinite(value) || Math.abs(value) >= 61440f) { // 61440 is the midpoint to the next binade: rounds to inf
            return (byte) (sign | 0x7C);
        }
        return (byte) (sign | encodeMagnitude(value, 2, 15));
    }

    /** Exponent and mantissa bits of |value| in a format with {@code mantBits} mantissa bits, rounded to nearest even. */
    private static int encodeMagnitude(float value, int mantBits, int bias) {
        int bits = Float.floatToRawIntBits(value) & 0x7FFFFFFF;
        int exponent = (bits >>> 23) - 127;
        int significand = (bits & 0x7FFFFF) | (bits >>> 23 == 0 ? 0 : 0x800000);
        int minNormalExponent = 1 - bias;
        int shift = 23 - mantBits;
        int combined;
        if (exponent >= minNormalExponent) {
            combined = ((exponent + bias) << mantBits) | ((significand & 0x7FFFFF) >>> shift);
        } else {
            shift += minNormalExponent - exponent; // subnormal: the implicit one moves into the mantissa
            if (shift > 25) {
                return 0;
            }
            combined = significand >>> shift;
        }
        int remainder = significand & ((1 << shift) - 1);
        int half = 1 << (shift - 1);
        if (remainder > half || (remainder == half && (combined & 1) != 0)) {
            combined++; // a carry out of the mantissa correctly bumps the exponent
        }
        return combined;
    }

    private static float decode(int b, int expBits, int mantBits, int bias, boolean ieeeSpecials) {
        boolean negative = (b & 0x80) != 0;
        int exponent = (b >>> mantBits) & ((1 << expBits) - 1);
        int mantissa = b & ((1 << mantBits) - 1);
        int maxExponent = (1 << expBits) - 1;
        float magnitude;
        if (ieeeSpecials && exponent == maxExponent) {
            magnitude = mantissa == 0 ? Float.POSITIVE_INFINITY : Float.NaN;
        } else if (!ieeeSpecials && exponent == maxExponent && mantissa == (1 << mantBits) - 1) {
            magnitude = Float.NaN;
        } else if (exponent == 0) {
            magnitude = Math.scalb((float) mantissa, 1 - bias - mantBits);
        } else {
            magnitude = Math.scalb((float) ((1 << mantBits) | mantissa), exponent - bias - mantBits);
        }
        return negative ? -magnitude : magnitude;
    }
}
