package io.allsum.client;

import io.allsum.model.ProtocolJson;
import tools.jackson.databind.json.JsonMapper;

/** The JSON mapping of protocol v1 on the client side: {@link ProtocolJson}'s. */
public final class AllsumJson {

    private AllsumJson() {
    }

    /** Thread-safe and immutable. */
    public static JsonMapper mapper() {
        return ProtocolJson.mapper();
    }
}
