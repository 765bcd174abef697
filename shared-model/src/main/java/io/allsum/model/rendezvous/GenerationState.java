package io.allsum.model.rendezvous;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.allsum.model.WireEnum;

/** Life of one generation of a group: JOINING until every rank is in, then COMPLETE, until it FAILED or CLOSED. */
public enum GenerationState implements WireEnum {
    JOINING, COMPLETE, FAILED, CLOSED;

    @JsonCreator
    public static GenerationState fromWire(String value) {
        return WireEnum.parse(GenerationState.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
