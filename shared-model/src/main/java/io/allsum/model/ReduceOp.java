package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;

/** Reduction operators (nccl-tests -o). AVG is the sum divided by the world size. */
public enum ReduceOp implements WireEnum {
    SUM, PROD, MAX, MIN, AVG;

    @JsonCreator
    public static ReduceOp fromWire(String value) {
        return WireEnum.parse(ReduceOp.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
