package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/** The JSON mapping of protocol v1's records: tolerant reader, nulls left out of what it writes. */
public final class ProtocolJson {

    private static final JsonMapper MAPPER = JsonMapper.builder()
            // A newer peer may add fields; an older reader must keep working.
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            // An absent optional field (uniqueId from rank 1, endpoint with nccl) must not travel as null.
            .changeDefaultPropertyInclusion(incl -> incl.withValueInclusion(JsonInclude.Include.NON_NULL))
            .build();

    private ProtocolJson() {
    }

    /** Thread-safe and immutable; java.time types are handled natively by Jackson 3 (ISO-8601 strings). */
    public static JsonMapper mapper() {
        return MAPPER;
    }
}
