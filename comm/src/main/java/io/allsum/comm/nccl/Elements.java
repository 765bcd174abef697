package io.allsum.comm.nccl;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Test patterns and the host-side reference for verifying collectives: values are small integers, exact in every
 * dtype (float8 included), reduced in double and encoded little-endian the way the GPU stores them.
 */
final class Elements {

    private Elements() {
    }

    /** Element i of rank {@code seed}'s input: a small integer in [-3, 3] (unsigned types: [0, 6]). */
    static double[] pattern(DataType type, int count, int seed) {
        double[] values = new double[count];
        boolean unsigned = type == DataType.UINT8 || type == DataType.UINT32 || type == DataType.UINT64;
        for (int i = 0; i < count; i++) {
            int v = Math.floorMod(i * 5 + seed * 3, 7);
            values[i] = unsigned ? v : v - 3;
        }
        return values;
    }

    /** The element-wise reduction over ranks, as NCCL defines it (AVG: sum / n, truncated for integers). */
    static double[] reduce(ReduceOp op, DataType type, List<double[]> contributions) {
        int count = contributions.getFirst().length;
        double[] out = new double[count];
        for (int i = 0; i < count; i++) {
            double acc = contributions.getFirst()[i];
            for (int r = 1; r < contributions.size(); r++) {
                acc = op.combine(acc, contributions.get(r)[i]);
            }
            if (op == ReduceOp.AVG) {
                acc = acc / contributions.size();
                if (!type.isFloatingPoint()) {
                    acc = (double) (long) acc;
                }
            }
            out[i] = acc;
        }
        return out;
    }

    /** Little-endian bytes of {@code values} in {@code type}. */
    static ByteBuffer encode(DataType type, double[] values) {
        ByteBuffer out = ByteBuffer.allocateDirect(values.length * type.bytes()).order(ByteOrder.LITTLE_ENDIAN);
        for (double v : values) {
            switch (type) {
                case INT8, UINT8 -> out.put((byte) (long) v);
                case INT32, UINT32 -> out.putInt((int) (long) v);
                case INT64, UINT64 -> out.putLong((long) v);
                case FLOAT16 -> out.putShort(Float.floatToFloat16((float) v));
                case BFLOAT16 -> out.putShort((short) (Float.floatToRawIntBits((float) v) >>> 16));
                case FLOAT32 -> out.putFloat((float) v);
                case FLOAT64 -> out.putDouble(v);
                case FLOAT8_E4M3 -> out.put(float8(v, 4, 3, 7));
                case FLOAT8_E5M2 -> out.put(float8(v, 5, 2, 15));
            }
        }
        return out.flip();
    }

    /** Number of byte-level elements of {@code type} where {@code actual} differs from {@code expected}. */
    static long countWrong(DataType type, ByteBuffer expected, ByteBuffer actual) {
        int width = type.bytes();
        long wrong = 0;
        int elements = expected.remaining() / width;
        for (int e = 0; e < elements; e++) {
            for (int b = 0; b < width; b++) {
                int at = e * width + b;
                if (expected.get(expected.position() + at) != actual.get(actual.position() + at)) {
                    wrong++;
                    break;
                }
            }
        }
        return wrong;
    }

    /** Encodes an exactly representable value as float8 with the given exponent/mantissa bits and bias. */
    static byte float8(double value, int exponentBits, int mantissaBits, int bias) {
        for (int bits = 0; bits < 256; bits++) {
            if (decodeFloat8(bits, exponentBits, mantissaBits, bias) == value
                    && (value != 0 || (bits & 0x80) == (Double.doubleToRawLongBits(value) < 0 ? 0x80 : 0))) {
                return (byte) bits;
            }
        }
        throw new IllegalArgumentException(value + " is not exact in float8 e" + exponentBits + "m" + mantissaBits);
    }

    static double decodeFloat8(int bits, int exponentBits, int mantissaBits, int bias) {
        int sign = (bits >> 7) & 1;
        int exponent = (bits >> mantissaBits) & ((1 << exponentBits) - 1);
        int mantissa = bits & ((1 << mantissaBits) - 1);
        double magnitude = exponent == 0
                ? Math.scalb((double) mantissa / (1 << mantissaBits), 1 - bias)
                : Math.scalb(1 + (double) mantissa / (1 << mantissaBits), exponent - bias);
        return sign == 1 ? -magnitude : magnitude;
    }
}
