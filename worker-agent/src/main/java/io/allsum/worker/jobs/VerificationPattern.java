package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

/**
 * The values every rank feeds a job and the exact results expected back, for one op, dtype, reduction and world
 * size n. Rank r's input element j is a small integer {@code value(r, j mod PERIOD)}, chosen so that every partial
 * result a backend may form, in any order, is exactly representable in the dtype (float8 included):
 * <ul>
 * <li>data movement, MAX and MIN: integers in [-m, m] with m = min(64, M), where M is the dtype's largest exactly
 * representable integer (16 for e4m3, 8 for e5m2, 256 for bfloat16, 2048 for half); unsigned types use [0, m]
 * and the top m values of their range, so that a signed comparison would be caught;</li>
 * <li>SUM and integer AVG: integers in [-m, m] ([0, m] unsigned) with m = min(64, M / n), so no partial sum
 * exceeds M. When M / n is 0 (n &gt; M) each element gets a 1 from at most M ranks and 0 from the rest;</li>
 * <li>PROD: 1 everywhere except at most two ranks contribute a 2 per element, and signed types a few -1s, so
 * every product is one of +-1, +-2, +-4;</li>
 * <li>floating-point AVG: ranks pair up around a per-element base b (b + d, b - d, and b for an odd last rank),
 * so the sum is n x b and the exact average is the integer b.</li>
 * </ul>
 * Integer AVG is the sum divided by n, truncated toward zero (NCCL's semantics). Floating-point AVG is exact, with
 * zero tolerance, when n is a power of two (NCCL pre-multiplies by 1/n, which is then exact). For other n, 1/n is
 * not representable and a backend that pre-multiplies rounds; there a value within (n + 1) x u x sum(|x|) / n of b
 * counts as right, where u = 2^-(mantissa bits + 1) is the dtype's unit roundoff: the bound on n rounded products
 * and n - 1 rounded additions. Every other comparison is exact.
 * <p>
 * The period is a prime, so offsets that are powers of two, or multiples of them, never map an element onto one
 * with the same expected value by construction.
 */
final class VerificationPattern {

    /** Largest prime below 2^16. */
    static final int PERIOD = 65521;

    /** Largest magnitude of an input value: small enough for narrow types, wide enough to catch misplacements. */
    static final long MAX_MAGNITUDE = 64;

    private enum Kind { SPREAD, SUM, PROD, FLOAT_AVG }

    private final DataType type;
    private final ReduceOp redop;
    private final int worldSize;
    private final Kind kind;
    private final long range;
    private final long sparseStride;
    private final int tableLength;
    private final long[] reducedBits;
    private final double[] tolerance;

    /**
     * @param maxIndex how many elements the largest buffer of the job holds; tables cover min(PERIOD, maxIndex)
     */
    VerificationPattern(CollectiveOp op, DataType type, ReduceOp redop, int worldSize, long maxIndex) {
        this.type = type;
        this.redop = redop;
        this.worldSize = worldSize;
        this.kind = kindOf(op, type, redop);
        long maxExact = DTypeCodec.maxExactInteger(type);
        boolean signed = DTypeCodec.isSigned(type);
        this.range = switch (kind) {
            case SPREAD -> Math.min(MAX_MAGNITUDE, signed ? maxExact : maxExact / 2);
            case SUM, FLOAT_AVG -> Math.min(MAX_MAGNITUDE, maxExact / worldSize);
            case PROD -> 0;
        };
        this.sparseStride = Math.ceilDiv(worldSize, Math.min(maxExact, worldSize));
        this.tableLength = (int) Math.max(1, Math.min(PERIOD, maxIndex));
        if (op.reduces()) {
            this.reducedBits = new long[tableLength];
            boolean tolerant = kind == Kind.FLOAT_AVG && Integer.bitCount(worldSize) != 1;
            this.tolerance = tolerant ? new double[tableLength] : null;
            fillReduced();
        } else {
            this.reducedBits = null;
            this.tolerance = null;
        }
    }

    private static Kind kindOf(CollectiveOp op, DataType type, ReduceOp redop) {
        if (!op.reduces()) {
            return Kind.SPREAD;
        }
        return switch (redop) {
            case MAX, MIN -> Kind.SPREAD;
            case SUM -> Kind.SUM;
            case PROD -> Kind.PROD;
            case AVG -> type.isFloatingPoint() ? Kind.FLOAT_AVG : Kind.SUM;
        };
    }

    int tableLength() {
        return tableLength;
    }

    /** Bits of rank {@code rank}'s inputs for pattern indexes 0 .. tableLength-1 (index j uses entry j mod PERIOD). */
    long[] inputTable(int rank) {
        long[] table = new long[tableLength];
        for (int t = 0; t < tableLength; t++) {
            table[t] = bits(value(rank, t));
        }
        return table;
    }

    /** Bits of the exact reduction over all ranks, per pattern index; only for reducing ops. */
    long[] reducedTable() {
        if (reducedBits == null) {
            throw new IllegalStateException("this pattern belongs to an op that does not reduce");
        }
        return reducedBits;
    }

    /** Accepted distance from the reduced value per pattern index, or null when every comparison is exact. */
    double[] toleranceTable() {
        return tolerance;
    }

    /** Rank {@code rank}'s input at pattern index {@code t} (0 &lt;= t &lt; PERIOD), as a logical integer value. */
    long value(int rank, int t) {
        boolean signed = DTypeCodec.isSigned(type);
        return switch (kind) {
            case SPREAD -> {
                long k = mix(rank, t) % (2 * range + 1);
                if (signed) {
                    yield k - range;
                }
                // Unsigned: the bottom and the top of the range, so a signed comparison gives a wrong MAX or MIN.
                yield k <= range ? k : DTypeCodec.mask(type) - (k - range - 1);
            }
            case SUM -> {
                if (range == 0) {
                    yield (t + rank) % sparseStride == 0 ? 1 : 0;
                }
                yield signed ? mix(rank, t) % (2 * range + 1) - range : mix(rank, t) % (range + 1);
            }
            case PROD -> {
                int q = Math.max(4, worldSize);
                // Each rule picks exactly one rank of q >= n (those that exist), so at most two 2s per element.
                long v = ((t + rank) % q == 0 ? 2 : 1) * ((t + rank + q / 2) % q == 0 ? 2 : 1);
                yield signed && mix(rank, t) % 5 == 0 ? -v : v;
            }
            case FLOAT_AVG -> {
                long spread = range / 3;
                long baseRange = range - spread;
                long base = mix(-1, t) % (2 * baseRange + 1) - baseRange;
                long delta = mix(1_000_003 + rank / 2, t) % (spread + 1);
                boolean paired = rank % 2 == 1 || rank + 1 < worldSize;
                yield !paired ? base : rank % 2 == 0 ? base + delta : base - delta;
            }
        };
    }

    private long bits(long logicalValue) {
        return type.isFloatingPoint()
                ? DTypeCodec.encodeFloat(type, (double) logicalValue)
                : DTypeCodec.encodeInteger(type, logicalValue);
    }

    private void fillReduced() {
        boolean unsigned = !DTypeCodec.isSigned(type);
        double unitRoundoff = type.isFloatingPoint() ? Math.scalb(1.0, -(DTypeCodec.mantissaBits(type) + 1)) : 0;
        for (int t = 0; t < tableLength; t++) {
            long acc = value(0, t);
            long absSum = Math.abs(acc);
            for (int r = 1; r < worldSize; r++) {
                long v = value(r, t);
                absSum += Math.abs(v);
                acc = switch (redop) {
                    case SUM, AVG -> acc + v;
                    case PROD -> acc * v;
                    case MAX -> (unsigned ? Long.compareUnsigned(v, acc) : Long.compare(v, acc)) > 0 ? v : acc;
                    case MIN -> (unsigned ? Long.compareUnsigned(v, acc) : Long.compare(v, acc)) < 0 ? v : acc;
                };
            }
            if (redop == ReduceOp.AVG) {
                if (type.isFloatingPoint() && acc % worldSize != 0) {
                    throw new IllegalStateException("average pattern sum " + acc + " at index " + t
                            + " does not divide by " + worldSize);
                }
                acc = acc / worldSize;
            }
            reducedBits[t] = bits(acc);
            if (tolerance != null) {
                tolerance[t] = (worldSize + 1) * unitRoundoff * absSum / worldSize;
            }
        }
    }

    /** A well-mixed non-negative hash of (a, b) (SplitMix64's finaliser). */
    private static long mix(long a, long b) {
        long z = a * 0x9E37_79B9_7F4A_7C15L + b * 0xC2B2_AE3D_27D4_EB4FL + 0x1656_67B1_9E37_79F9L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return (z ^ (z >>> 31)) >>> 1;
    }
}
