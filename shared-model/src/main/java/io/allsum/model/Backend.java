package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

import java.util.Arrays;
import java.util.Locale;

/** Which communicator a group uses. Every member of a group must use the same one. */
public enum Backend {
    /** NCCL through JavaCPP; rank 0 brings the 128-byte unique id. */
    NCCL,
    /** allsum's pure-Java CPU ring over TCP; members bring their listening endpoint. */
    RING;

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static Backend fromWire(String value) {
        return Wire.parse(Backend.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }

    /** Lower-case wire names for enums, with an error that lists the accepted values. */
    public static final class Wire {
        private Wire() {
        }

        public static <E extends Enum<E>> E parse(Class<E> type, String value) {
            if (value != null) {
                for (E constant : type.getEnumConstants()) {
                    if (constant.name().equalsIgnoreCase(value) || constant.toString().equalsIgnoreCase(value)) {
                        return constant;
                    }
                }
            }
            throw new IllegalArgumentException("unknown " + type.getSimpleName() + " '" + value + "'; expected one of "
                    + Arrays.stream(type.getEnumConstants()).map(Object::toString).toList());
        }
    }
}
