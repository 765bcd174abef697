package io.allsum.model;

import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.DeserializationContext;
import tools.jackson.databind.ValueDeserializer;

import java.math.BigDecimal;

/**
 * Integer fields that refuse a fractional JSON number ({@code "stepFactor": 1.1}) instead of truncating it, as
 * Jackson does by default. A whole number written as a float ({@code 2.0}) is taken; strings and other shapes are
 * left to Jackson's usual rules.
 */
public final class WholeNumbers {

    private WholeNumbers() {
    }

    /** For {@link Integer} fields. */
    public static final class IntOnly extends ValueDeserializer<Integer> {
        @Override
        public Integer deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                return (int) whole(p, ctxt, Integer.MIN_VALUE, Integer.MAX_VALUE);
            }
            return ctxt.readValue(p, Integer.class);
        }
    }

    /** For {@link Long} fields. */
    public static final class LongOnly extends ValueDeserializer<Long> {
        @Override
        public Long deserialize(JsonParser p, DeserializationContext ctxt) {
            if (p.currentToken() == JsonToken.VALUE_NUMBER_FLOAT) {
                return whole(p, ctxt, Long.MIN_VALUE, Long.MAX_VALUE);
            }
            return ctxt.readValue(p, Long.class);
        }
    }

    private static long whole(JsonParser p, DeserializationContext ctxt, long min, long max) {
        String text = p.getString();
        BigDecimal value = p.getDecimalValue();
        if (value.stripTrailingZeros().scale() > 0) {
            return ctxt.reportInputMismatch(Long.class, "must be a whole number, was " + text);
        }
        if (value.compareTo(BigDecimal.valueOf(min)) < 0 || value.compareTo(BigDecimal.valueOf(max)) > 0) {
            return ctxt.reportInputMismatch(Long.class, text + " is out of range");
        }
        return value.longValueExact();
    }
}
