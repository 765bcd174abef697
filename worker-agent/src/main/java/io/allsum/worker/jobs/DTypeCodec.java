package io.allsum.worker.jobs;

import io.allsum.model.DataType;

import java.nio.ByteBuffer;

/**
 * Host-side encoding of every {@link DataType} as raw little-endian bits in a {@code long}. Written here, apart from
 * any backend, so that verification checks the backends instead of sharing their conversions.
 * <p>
 * Floating-point encoding rounds to nearest even; the runner only ever encodes exactly representable values.
 * Overflow gives infinity where the format has one and NaN for float8 e4m3 (the OCP "fn" variant: no infinity,
 * 0x7F is NaN, 448 is the largest finite value).
 */
public final class DTypeCodec {

    private static final Minifloat FLOAT16 = new Minifloat(5, 10, true);
    private static final Minifloat BFLOAT16 = new Minifloat(8, 7, true);
    private static final Minifloat E4M3 = new Minifloat(4, 3, false);
    private static final Minifloat E5M2 = new Minifloat(5, 2, true);

    private DTypeCodec() {
    }

    /** Mask of the type's width: the bits that {@link #readBits} returns and {@link #writeBits} stores. */
    public static long mask(DataType type) {
        return type.bytes() == 8 ? -1L : (1L << (8 * type.bytes())) - 1;
    }

    public static boolean isSigned(DataType type) {
        return switch (type) {
            case UINT8, UINT32, UINT64 -> false;
            default -> true;
        };
    }

    /** Bits of an integer type holding {@code value} (truncated to the width, two's complement). */
    public static long encodeInteger(DataType type, long value) {
        requireInteger(type);
        return value & mask(type);
    }

    /** Value of an integer type's bits: sign-extended for signed types, zero-extended for unsigned ones. */
    public static long decodeInteger(DataType type, long bits) {
        requireInteger(type);
        int width = 8 * type.bytes();
        if (width == 64) {
            return bits;
        }
        return isSigned(type) ? (bits << (64 - width)) >> (64 - width) : bits & mask(type);
    }

    /** Bits of a floating-point type nearest to {@code value}. */
    public static long encodeFloat(DataType type, double value) {
        return switch (type) {
            case FLOAT32 -> Float.floatToRawIntBits((float) value) & 0xFFFF_FFFFL;
            case FLOAT64 -> Double.doubleToRawLongBits(value);
            case FLOAT16 -> FLOAT16.encode(value);
            case BFLOAT16 -> BFLOAT16.encode(value);
            case FLOAT8_E4M3 -> E4M3.encode(value);
            case FLOAT8_E5M2 -> E5M2.encode(value);
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /** The exact value of a floating-point type's bits (every format here widens exactly to double). */
    public static double decodeFloat(DataType type, long bits) {
        return switch (type) {
            case FLOAT32 -> Float.intBitsToFloat((int) bits);
            case FLOAT64 -> Double.longBitsToDouble(bits);
            case FLOAT16 -> FLOAT16.decode(bits);
            case BFLOAT16 -> BFLOAT16.decode(bits);
            case FLOAT8_E4M3 -> E4M3.decode(bits);
            case FLOAT8_E5M2 -> E5M2.decode(bits);
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /** Stored significand bits (without the implicit one) of a floating-point type. */
    public static int mantissaBits(DataType type) {
        return switch (type) {
            case FLOAT32 -> 23;
            case FLOAT64 -> 52;
            case FLOAT16 -> 10;
            case BFLOAT16 -> 7;
            case FLOAT8_E4M3 -> 3;
            case FLOAT8_E5M2 -> 2;
            default -> throw new IllegalArgumentException(type + " is not a floating-point type");
        };
    }

    /**
     * The largest M such that every integer in [-M, M] (in [0, M] for unsigned types) is exactly representable:
     * 2^(mantissa bits + 1) for floating point, the type's maximum for integers (capped at Long.MAX_VALUE).
     */
    public static long maxExactInteger(DataType type) {
        return switch (type) {
            case INT8 -> Byte.MAX_VALUE;
            case UINT8 -> 0xFF;
            case INT32 -> Integer.MAX_VALUE;
            case UINT32 -> 0xFFFF_FFFFL;
            case INT64, UINT64 -> Long.MAX_VALUE;
            default -> 1L << (mantissaBits(type) + 1);
        };
    }

    /** Reads one element's bits at {@code byteIndex} of a little-endian buffer. */
    public static long readBits(ByteBuffer buffer, int byteIndex, int width) {
        return switch (width) {
            case 1 -> buffer.get(byteIndex) & 0xFFL;
            case 2 -> buffer.getShort(byteIndex) & 0xFFFFL;
            case 4 -> buffer.getInt(byteIndex) & 0xFFFF_FFFFL;
            case 8 -> buffer.getLong(byteIndex);
            default -> throw new IllegalArgumentException("no element type is " + width + " bytes wide");
        };
    }

    /** Writes one element's bits at {@code byteIndex} of a little-endian buffer. */
    public static void writeBits(ByteBuffer buffer, int byteIndex, int width, long bits) {
        switch (width) {
            case 1 -> buffer.put(byteIndex, (byte) bits);
            case 2 -> buffer.putShort(byteIndex, (short) bits);
            case 4 -> buffer.putInt(byteIndex, (int) bits);
            case 8 -> buffer.putLong(byteIndex, bits);
            default -> throw new IllegalArgumentException("no element type is " + width + " bytes wide");
        }
    }

    private static void requireInteger(DataType type) {
        if (type.isFloatingPoint()) {
            throw new IllegalArgumentException(type + " is not an integer type");
        }
    }

    /**
     * A binary floating-point format narrower than double: sign, {@code exponentBits}, {@code mantissaBits}, bias
     * 2^(e-1) - 1, subnormals. With {@code ieeeSpecials} the all-ones exponent holds infinity and NaN; without
     * (float8 e4m3fn) only all-ones exponent and mantissa is NaN and the rest of that exponent is finite.
     */
    private record Minifloat(int exponentBits, int mantissaBits, boolean ieeeSpecials) {

        private int bias() {
            return (1 << (exponentBits - 1)) - 1;
        }

        private long maxExponentField() {
            return (1L << exponentBits) - 1;
        }

        private long mantissaMask() {
            return (1L << mantissaBits) - 1;
        }

        private long signBit() {
            return 1L << (exponentBits + mantissaBits);
        }

        double decode(long bits) {
            boolean negative = (bits & signBit()) != 0;
            long exponentField = (bits >>> mantissaBits) & maxExponentField();
            long mantissa = bits & mantissaMask();
            double magnitude;
            if (ieeeSpecials && exponentField == maxExponentField()) {
                magnitude = mantissa == 0 ? Double.POSITIVE_INFINITY : Double.NaN;
            } else if (!ieeeSpecials && exponentField == maxExponentField() && mantissa == mantissaMask()) {
                magnitude = Double.NaN;
            } else if (exponentField == 0) {
                magnitude = Math.scalb((double) mantissa, 1 - bias() - mantissaBits);
            } else {
                magnitude = Math.scalb((double) ((1L << mantissaBits) | mantissa),
                        (int) exponentField - bias() - mantissaBits);
            }
            return negative ? -magnitude : magnitude;
        }

        long encode(double value) {
            if (Double.isNaN(value)) {
                return nan();
            }
            long sign = Double.doubleToRawLongBits(value) < 0 ? signBit() : 0;
            double magnitude = Math.abs(value);
            if (magnitude == 0) {
                return sign;
            }
            if (Double.isInfinite(magnitude)) {
                return sign | overflow();
            }
            int minExponent = 1 - bias();
            int exponent = Math.getExponent(magnitude);
            if (exponent < minExponent) {
                // Subnormal: the field is the rounded multiple of the smallest subnormal. A result of 2^mantissaBits
                // is the smallest normal, which the same bit layout already encodes correctly.
                long units = (long) Math.rint(Math.scalb(magnitude, mantissaBits - minExponent));
                return sign | units;
            }
            long significand = (long) Math.rint(Math.scalb(magnitude, mantissaBits - exponent));
            if (significand == 1L << (mantissaBits + 1)) {
                significand >>= 1;
                exponent++;
            }
            long exponentField = exponent + bias();
            long mantissa = significand & mantissaMask();
            boolean tooLarge = ieeeSpecials
                    ? exponentField >= maxExponentField()
                    : exponentField > maxExponentField()
                    || (exponentField == maxExponentField() && mantissa == mantissaMask());
            if (tooLarge) {
                return sign | overflow();
            }
            return sign | (exponentField << mantissaBits) | mantissa;
        }

        private long overflow() {
            return ieeeSpecials ? maxExponentField() << mantissaBits : nan();
        }

        private long nan() {
            return ieeeSpecials
                    ? (maxExponentField() << mantissaBits) | (1L << (mantissaBits - 1))
                    : (maxExponentField() << mantissaBits) | mantissaMask();
        }
    }
}
