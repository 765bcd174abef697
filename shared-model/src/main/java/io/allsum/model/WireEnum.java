package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;

/**
 * An enum that travels as its lower-case name. Each one keeps its own {@code @JsonCreator fromWire} (Jackson finds
 * creators only on the type itself) and a {@code toString} of {@link #wireName()}, which messages print.
 */
public interface WireEnum {

    String name();

    @JsonValue
    default String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The constant whose name or wire name is {@code value} in any case; the error lists the accepted values. */
    static <E extends Enum<E> & WireEnum> E parse(Class<E> type, String value) {
        if (value != null) {
            for (E constant : type.getEnumConstants()) {
                if (constant.name().equalsIgnoreCase(value) || constant.wireName().equalsIgnoreCase(value)) {
                    return constant;
                }
            }
        }
        throw new IllegalArgumentException("unknown " + type.getSimpleName() + " '" + value + "'; expected one of "
                + Arrays.stream(type.getEnumConstants()).map(WireEnum::wireName).toList());
    }
}
