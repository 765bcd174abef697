package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Reduction operators (nccl-tests -o). AVG is the sum divided by the world size. */
public enum ReduceOp implements WireEnum {
    SUM, PROD, MAX, MIN, AVG;

    /** One step of the reduction: {@code acc} combined with the next value (AVG adds; the caller divides by n). */
    public double combine(double acc, double value) {
        return switch (this) {
            case SUM, AVG -> acc + value;
            case PROD -> acc * value;
            case MAX -> Math.max(acc, value);
            case MIN -> Math.min(acc, value);
        };
    }

    @JsonCreator
    public static ReduceOp fromWire(String value) {
        return WireEnum.parse(ReduceOp.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
