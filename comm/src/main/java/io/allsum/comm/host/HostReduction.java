package io.allsum.comm.host;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Element-wise reduction of little-endian host memory for every {@link DataType} x {@link ReduceOp}, usable by any
 * CPU backend. Integers wrap like C (and NCCL); 8/16-bit floats are reduced in float and rounded to nearest even
 * after every step, like NCCL does on the GPU. AVG is a SUM here, followed by {@link #divide} once all ranks are in.
 */
public final class HostReduction {

    static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private HostReduction() {
    }

    /** {@code dst[i] = a[i] op b[i]} for {@code i < count}; dst may be a or b. AVG sums (see {@link #divide}). */
    public static void combine(MemorySegment a, MemorySegment b, MemorySegment dst, long count, DataType type,
                               ReduceOp op) {
        if (count == 0) {
            return;
        }
        long bytes = count * type.bytes();
        checkSize(a, bytes);
        checkSize(b, bytes);
        checkSize(dst, bytes);
        switch (type) {
            case FLOAT32 -> combineFloat32(a, b, dst, count, op);
            case FLOAT64 -> combineFloat64(a, b, dst, count, op);
            case INT32 -> combineInt32(a, b, dst, count, op, false);
            case UINT32 -> combineInt32(a, b, dst, count, op, true);
            case INT64 -> combineInt64(a, b, dst, count, op, false);
            case UINT64 -> combineInt64(a, b, dst, count, op, true);
            case INT8 -> combineInt8(a, b, dst, count, op, false);
            case UINT8 -> combineInt8(a, b, dst, count, op, true);
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 -> combineMiniFloat(a, b, dst, count, type, op);
        }
    }

    /** AVG's last step: {@code seg[i] /= divisor}; integer division truncates toward zero (unsigned for uint types). */
    public static void divide(MemorySegment seg, long count, DataType type, int divisor) {
        if (divisor <= 0) {
            throw new IllegalArgumentException("divisor must be positive: " + divisor);
        }
        if (divisor == 1 || count == 0) {
            return;
        }
        checkSize(seg, count * type.bytes());
        switch (type) {
            case FLOAT32 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(F32, i, seg.getAtIndex(F32, i) / divisor);
                }
            }
            case FLOAT64 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(F64, i, seg.getAtIndex(F64, i) / divisor);
                }
            }
            case INT8 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I8, i, (byte) (seg.getAtIndex(I8, i) / divisor));
                }
            }
            case UINT8 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I8, i, (byte) ((seg.getAtIndex(I8, i) & 0xFF) / divisor));
                }
            }
            case INT32 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I32, i, seg.getAtIndex(I32, i) / divisor);
                }
            }
            case UINT32 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I32, i, Integer.divideUnsigned(seg.getAtIndex(I32, i), divisor));
                }
            }
            case INT64 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I64, i, seg.getAtIndex(I64, i) / divisor);
                }
            }
            case UINT64 -> {
                for (long i = 0; i < count; i++) {
                    seg.setAtIndex(I64, i, Long.divideUnsigned(seg.getAtIndex(I64, i), divisor));
                }
            }
            case FLOAT16, BFLOAT16, FLOAT8_E4M3, FLOAT8_E5M2 -> {
                for (long i = 0; i < count; i++) {
                    storeMini(seg, i, type, loadMini(seg, i, type) / divisor);
                }
            }
        }
    }

    /** Reads element {@code i} of a 8/16-bit float type as a float. */
    public static float loadMini(MemorySegment seg, long i, DataType type) {
        return switch (type) {
            case FLOAT16 -> Float.float16ToFloat(seg.getAtIndex(I16, i));
            case BFLOAT16 -> MiniFloats.bfloat16ToFloat(seg.getAtIndex(I16, i));
            case FLOAT8_E4M3 -> MiniFloats.e4m3ToFloat(seg.getAtIndex(I8, i));
            case FLOAT8_E5M2 -> MiniFloats.e5m2ToFloat(seg.getAtIndex(I8, i));
            default -> throw new IllegalArgumentException("not a 8/16-bit float type: " + type);
        };
    }

    /** Writes a float as element {@code i} of a 8/16-bit float type, rounded to nearest even. */
    public static void storeMini(MemorySegment seg, long i, DataType type, float value) {
        switch (type) {
            case FLOAT16 -> seg.setAtIndex(I16, i, Float.floatToFloat16(value));
            case BFLOAT16 -> seg.setAtIndex(I16, i, MiniFloats.floatToBfloat16(value));
            case FLOAT8_E4M3 -> seg.setAtIndex(I8, i, MiniFloats.floatToE4m3(value));
            case FLOAT8_E5M2 -> seg.setAtIndex(I8, i, MiniFloats.floatToE5m2(value));
            default -> throw new IllegalArgumentException("not a 8/16-bit float type: " + type);
        }
    }

    private static void checkSize(MemorySegment seg, long bytes) {
        if (seg.byteSize() < bytes) {
            throw new IndexOutOfBoundsException("segment of " + seg.byteSize() + " bytes is smaller than " + bytes);
        }
    }

    // One tight loop per op so that C2 can vectorise the hot float32 paths.
    private static void combineFloat32(MemorySegment a, MemorySegment b, MemorySegment d, long n, ReduceOp op) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F32, i, a.getAtIndex(F32, i) + b.getAtIndex(F32, i));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F32, i, a.getAtIndex(F32, i) * b.getAtIndex(F32, i));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F32, i, Math.max(a.getAtIndex(F32, i), b.getAtIndex(F32, i)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F32, i, Math.min(a.getAtIndex(F32, i), b.getAtIndex(F32, i)));
                }
            }
        }
    }

    private static void combineFloat64(MemorySegment a, MemorySegment b, MemorySegment d, long n, ReduceOp op) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F64, i, a.getAtIndex(F64, i) + b.getAtIndex(F64, i));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F64, i, a.getAtIndex(F64, i) * b.getAtIndex(F64, i));
                }
            }
            case MAX -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F64, i, Math.max(a.getAtIndex(F64, i), b.getAtIndex(F64, i)));
                }
            }
            case MIN -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(F64, i, Math.min(a.getAtIndex(F64, i), b.getAtIndex(F64, i)));
                }
            }
        }
    }

    private static void combineInt32(MemorySegment a, MemorySegment b, MemorySegment d, long n, ReduceOp op,
                                     boolean unsigned) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(I32, i, a.getAtIndex(I32, i) + b.getAtIndex(I32, i));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(I32, i, a.getAtIndex(I32, i) * b.getAtIndex(I32, i));
                }
            }
            case MAX, MIN -> {
                boolean max = op == ReduceOp.MAX;
                for (long i = 0; i < n; i++) {
                    int x = a.getAtIndex(I32, i);
                    int y = b.getAtIndex(I32, i);
                    int cmp = unsigned ? Integer.compareUnsigned(x, y) : Integer.compare(x, y);
                    d.setAtIndex(I32, i, (cmp >= 0) == max ? x : y);
                }
            }
        }
    }

    private static void combineInt64(MemorySegment a, MemorySegment b, MemorySegment d, long n, ReduceOp op,
                                     boolean unsigned) {
        switch (op) {
            case SUM, AVG -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(I64, i, a.getAtIndex(I64, i) + b.getAtIndex(I64, i));
                }
            }
            case PROD -> {
                for (long i = 0; i < n; i++) {
                    d.setAtIndex(I64, i, a.getAtIndex(I64, i) * b.getAtIndex(I64, i));
                }
            }
            case MAX, MIN -> {
                boolean max = op == ReduceOp.MAX;
                for (long i = 0; i < n; i++) {
                    long x = a.getAtIndex(I64, i);
                    long y = b.getAtIndex(I64, i);
                    int cmp = unsigned ? Long.compareUnsigned(x, y) : Long.compare(x, y);
                    d.setAtIndex(I64, i, (cmp >= 0) == max ? x : y);
                }
            }
        }
    }

    private static void combineInt8(MemorySegment a, MemorySegment b, MemorySegment d, long n, ReduceOp op,
                                    boolean unsigned) {
        int mask = unsigned ? 0xFF : -1; // zero-extend uint8 so that MAX/MIN compare as unsigned
        for (long i = 0; i < n; i++) {
            int x = a.getAtIndex(I8, i) & mask;
            int y = b.getAtIndex(I8, i) & mask;
            int r = switch (op) {
                case SUM, AVG -> x + y;
                case PROD -> x * y;
                case MAX -> Math.max(x, y);
                case MIN -> Math.min(x, y);
            };
            d.setAtIndex(I8, i, (byte) r);
        }
    }

    private static void combineMiniFloat(MemorySegment a, MemorySegment b, MemorySegment d, long n, DataType type,
                                         ReduceOp op) {
        for (long i = 0; i < n; i++) {
            float x = loadMini(a, i, type);
            float y = loadMini(b, i, type);
            float r = switch (op) {
                case SUM, AVG -> x + y;
                case PROD -> x * y;
                case MAX -> Math.max(x, y);
                case MIN -> Math.min(x, y);
            };
            storeMini(d, i, type, r);
        }
    }
}
