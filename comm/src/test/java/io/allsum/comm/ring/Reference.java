package io.allsum.comm.ring;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * The tests' own model of every dtype: inputs that make every partial result exact (so the expected value does not
 * depend on the ring's reduction order), and expected results computed straight from the definitions, without the
 * production conversion or reduction code.
 */
final class Reference {

    private Reference() {
    }

    /** Input element i of rank r for an op: small exact values for floats, full-range values for integers. */
    static double floatInput(int r, long i, ReduceOp op) {
        int k = (int) Math.floorMod(i * 7 + r * 3 + (i >> 3), 5);
        return switch (op) {
            case SUM, AVG -> (k - 2) * 0.5;                       // |partial sums| <= 4, steps of 0.5
            case PROD -> new double[]{1, -1, 2, 0.5, -2}[k];       // ± powers of two, |product| <= 16
            case MAX, MIN -> new double[]{-3, -1.5, 0.5, 1, 3}[Math.floorMod(k + r, 5)];
        };
    }

    static long intInput(int r, long i) {
        long x = (i + 1) * 0x9E3779B97F4A7C15L ^ (r + 1) * 0xC2B2AE3D27D4EB4FL;
        return x ^ (x >>> 29);
    }

    static ByteBuffer encode(DataType type, long count, java.util.function.LongFunction<Number> values) {
        ByteBuffer buf = ByteBuffer.allocate((int) (count * type.bytes())).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < count; i++) {
            Number v = values.apply(i);
            switch (type) {
                case INT8, UINT8 -> buf.put((byte) v.longValue());
                case INT32, UINT32 -> buf.putInt((int) v.longValue());
                case INT64, UINT64 -> buf.putLong(v.longValue());
                case FLOAT32 -> buf.putFloat(v.floatValue());
                case FLOAT64 -> buf.putDouble(v.doubleValue());
                case FLOAT16 -> buf.putShort(Float.floatToFloat16(v.floatValue())); // exact for our inputs
                case BFLOAT16 -> buf.putShort((short) (Float.floatToRawIntBits(v.floatValue()) >>> 16)); // exact too
                case FLOAT8_E4M3, FLOAT8_E5M2 -> buf.put(exactFp8(type, v.doubleValue()));
            }
        }
        return buf.flip();
    }

    /** Element i of a little-endian buffer: floats as double, integers as long (zero-extended for unsigned). */
    static Number decode(DataType type, ByteBuffer buf, long i) {
        int at = (int) (i * type.bytes());
        buf = buf.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return switch (type) {
            case INT8 -> (long) buf.get(at);
            case UINT8 -> (long) (buf.get(at) & 0xFF);
            case INT32 -> (long) buf.getInt(at);
            case UINT32 -> buf.getInt(at) & 0xFFFFFFFFL;
            case INT64, UINT64 -> buf.getLong(at);
            case FLOAT32 -> (double) buf.getFloat(at);
            case FLOAT64 -> buf.getDouble(at);
            case FLOAT16 -> (double) Float.float16ToFloat(buf.getShort(at));
            case BFLOAT16 -> (double) Float.intBitsToFloat((buf.getShort(at) & 0xFFFF) << 16);
            case FLOAT8_E4M3, FLOAT8_E5M2 -> fp8Value(type, buf.get(at) & 0xFF);
        };
    }

    /** The exact expected element: integers wrap to the type's width, floats are exact then rounded once for AVG. */
    static Number expected(DataType type, ReduceOp op, List<Number> contributions) {
        int n = contributions.size();
        if (!type.isFloatingPoint()) {
            long acc = wrap(type, contributions.get(0).longValue());
            for (int r = 1; r < n; r++) {
                long x = wrap(type, contributions.get(r).longValue());
                acc = wrap(type, switch (op) {
                    case SUM, AVG -> acc + x;
                    case PROD -> acc * x;
                    case MAX -> unsigned(type) ? (Long.compareUnsigned(acc, x) >= 0 ? acc : x) : Math.max(acc, x);
                    case MIN -> unsigned(type) ? (Long.compareUnsigned(acc, x) <= 0 ? acc : x) : Math.min(acc, x);
                });
            }
            if (op == ReduceOp.AVG) {
                acc = wrap(type, unsigned(type) ? Long.divideUnsigned(acc, n) : acc / n);
            }
            return acc;
        }
        double acc = contributions.get(0).doubleValue();
        for (int r = 1; r < n; r++) {
            acc = op.combine(acc, contributions.get(r).doubleValue());
        }
        if (op == ReduceOp.AVG) {
            acc = roundTo(type, type == DataType.FLOAT64 ? acc / n : (double) ((float) acc / n));
        }
        return acc + 0.0; // -0.0 and 0.0 compare equal
    }

    static boolean unsigned(DataType type) {
        return type == DataType.UINT8 || type == DataType.UINT32 || type == DataType.UINT64;
    }

    static long wrap(DataType type, long v) {
        return switch (type) {
            case INT8 -> (byte) v;
            case UINT8 -> v & 0xFF;
            case INT32 -> (int) v;
            case UINT32 -> v & 0xFFFFFFFFL;
            default -> v;
        };
    }

    /** Rounds a value to the nearest value of a float type, ties to the even encoding. */
    static double roundTo(DataType type, double v) {
        return switch (type) {
            case FLOAT64 -> v;
            case FLOAT32 -> (float) v;
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16((float) v));
            case BFLOAT16 -> nearest(v, 0x10000, code -> (double) Float.intBitsToFloat(code << 16));
            case FLOAT8_E4M3, FLOAT8_E5M2 -> nearest(v, 256, code -> fp8Value(type, code));
            default -> throw new IllegalArgumentException(type.toString());
        };
    }

    private static double nearest(double v, int codes, java.util.function.IntToDoubleFunction value) {
        double best = Double.NaN;
        int bestCode = -1;
        for (int code = 0; code < codes; code++) {
            double c = value.applyAsDouble(code);
            if (Double.isNaN(c) || Double.isInfinite(c)) {
                continue;
            }
            double d = Math.abs(c - v);
            double bestD = Math.abs(best - v);
            if (bestCode < 0 || d < bestD || (d == bestD && (code & 1) == 0 && (bestCode & 1) == 1)) {
                best = c;
                bestCode = code;
            }
        }
        return best;
    }

    /** OCP FP8 from the bit fields: e4m3 (bias 7, no infinities, S.1111.111 NaN) and e5m2 (bias 15, IEEE-like). */
    static double fp8Value(DataType type, int code) {
        boolean e4m3 = type == DataType.FLOAT8_E4M3;
        int mantBits = e4m3 ? 3 : 2;
        int bias = e4m3 ? 7 : 15;
        int exp = (code & 0x7F) >> mantBits;
        int mant = code & ((1 << mantBits) - 1);
        double sign = (code & 0x80) != 0 ? -1 : 1;
        if (e4m3 && exp == 15 && mant == 7) {
            return Double.NaN;
        }
        if (!e4m3 && exp == 31) {
            return mant == 0 ? sign * Double.POSITIVE_INFINITY : Double.NaN;
        }
        if (exp == 0) {
            return sign * mant / (1 << mantBits) * Math.pow(2, 1 - bias);
        }
        return sign * (1 + (double) mant / (1 << mantBits)) * Math.pow(2, exp - bias);
    }

    static byte exactFp8(DataType type, double v) {
        for (int code = 0; code < 256; code++) {
            if (fp8Value(type, code) == v && (v != 0 || code == 0)) {
                return (byte) code;
            }
        }
        throw new IllegalArgumentException(v + " is not exactly representable in " + type);
    }
}
