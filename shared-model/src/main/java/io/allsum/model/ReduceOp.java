package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Locale;

/** Reduction operators (nccl-tests -o). AVG is the sum divided by the world size. */
public enum ReduceOp {
    SUM, PROD, MAX, MIN, AVG;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static ReduceOp fromWire(String value) {
        return Backend.Wire.parse(ReduceOp.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
