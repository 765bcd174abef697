package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/**
 * Collectives a job can run, with nccl-tests' bus-bandwidth factors (as nccl-tests' doc/PERFORMANCE.md defines them):
 * busbw = algbw * factor(n).
 */
public enum CollectiveOp {
    ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST, REDUCE,
    /** Every rank sends to rank+1 and receives from rank-1 (nccl-tests sendrecv_perf). */
    SEND_RECV;

    /** nccl-tests' factor from algorithm bandwidth to bus bandwidth for a world of n ranks. */
    public double busBandwidthFactor(int n) {
        return switch (this) {
            case ALL_REDUCE -> 2.0 * (n - 1) / n;
            case ALL_GATHER, REDUCE_SCATTER -> (double) (n - 1) / n;
            case BROADCAST, REDUCE, SEND_RECV -> 1.0;
        };
    }

    /** Whether the op takes a reduction operator (the "redop" column). */
    public boolean reduces() {
        return this == ALL_REDUCE || this == REDUCE_SCATTER || this == REDUCE;
    }

    /** Whether the op has a root (the "root" column). */
    public boolean rooted() {
        return this == BROADCAST || this == REDUCE;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static CollectiveOp fromWire(String value) {
        return Backend.Wire.parse(CollectiveOp.class, value == null ? null : value.replace('-', '_'));
    }

    @Override
    public String toString() {
        return wireName();
    }
}
