package io.allsum.model.rendezvous;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.allsum.model.Backend;

import java.util.Locale;

/** Life of one generation of a group: JOINING until every rank is in, then COMPLETE, until it FAILED or CLOSED. */
public enum GenerationState {
    JOINING, COMPLETE, FAILED, CLOSED;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static GenerationState fromWire(String value) {
        return Backend.Wire.parse(GenerationState.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
