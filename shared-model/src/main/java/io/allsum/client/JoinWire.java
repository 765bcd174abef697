package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.exc.StreamReadException;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;

/**
 * A join's request and its compact answer ({@code view=rank}) in JSON, through Jackson's streaming generator and
 * parser rather than databind: the same bytes out as {@link AllsumJson}'s mapper writes (property order, nulls left
 * out; JoinWireTest compares them) and the same record in as it reads from an answer of the rank view's shape
 * (unknown properties skipped, a null number read as 0; a value of another JSON type than its field's is refused,
 * where databind would coerce some).
 *
 * <p>Why: a worker joins once per generation, so this code is never compiled. In a fresh JVM on a 2-core machine
 * (interpreted, after a first call) databind took 60-390 us to write the request and 190-540 us to read the answer,
 * the streaming code 32-130 us and 85-200 us; the first calls, which build databind's serializer and deserializers,
 * took 100-340 ms and 60-260 ms against 28-32 ms and 51-115 ms (docs/benchmarks/rendezvous.md).
 * The last rank's request and every rank's answer are on the path a rendezvous is measured by.
 */
final class JoinWire {

    private JoinWire() {
    }

    /** {@code request} as the mapper writes it. */
    static byte[] request(JsonMapper json, JoinRequest request) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator g = json.createGenerator(out)) {
            g.writeStartObject();
            string(g, "group", request.group());
            number(g, "rank", request.rank());
            number(g, "worldSize", request.worldSize());
            string(g, "instanceId", request.instanceId());
            string(g, "backend", request.backend() == null ? null : request.backend().wireName());
            string(g, "uniqueId", request.uniqueId());
            string(g, "endpoint", request.endpoint());
            string(g, "host", request.host());
            string(g, "device", request.device());
            if (request.lastGeneration() != null) {
                g.writeNumberProperty("lastGeneration", request.lastGeneration());
            }
            g.writeEndObject();
        }
        return out.toByteArray();
    }

    private static void string(JsonGenerator g, String name, String value) {
        if (value != null) {
            g.writeStringProperty(name, value);
        }
    }

    private static void number(JsonGenerator g, String name, Integer value) {
        if (value != null) {
            g.writeNumberProperty(name, value);
        }
    }

    /**
     * A join's 200 answer with {@code view=rank}.
     *
     * @throws tools.jackson.core.JacksonException when the body is not one JSON object of the rank view's shape
     */
    static RankView rankView(JsonMapper json, byte[] body) {
        try (JsonParser p = json.createParser(body)) {
            expect(p, p.nextToken(), JsonToken.START_OBJECT);
            String group = null;
            String uniqueId = null;
            String viewTag = null;
            String epoch = null;
            Backend backend = null;
            long generation = 0;
            int worldSize = 0;
            int rank = 0;
            Member previous = null;
            Member next = null;
            for (String name = nextProperty(p); name != null; name = nextProperty(p)) {
                JsonToken value = p.currentToken();
                switch (name) {
                    case "group" -> group = text(p, value);
                    case "generation" -> generation = value == JsonToken.VALUE_NULL ? 0 : p.getLongValue();
                    case "worldSize" -> worldSize = value == JsonToken.VALUE_NULL ? 0 : p.getIntValue();
                    case "backend" -> backend = backend(p, value);
                    case "uniqueId" -> uniqueId = text(p, value);
                    case "rank" -> rank = value == JsonToken.VALUE_NULL ? 0 : p.getIntValue();
                    case "previous" -> previous = member(p, value);
                    case "next" -> next = member(p, value);
                    case "viewTag" -> viewTag = text(p, value);
                    case "epoch" -> epoch = text(p, value);
                    default -> p.skipChildren(); // a newer server's field
                }
            }
            if (p.nextToken() != null) {
                throw new StreamReadException(p, "trailing content after the rank view");
            }
            return new RankView(group, generation, worldSize, backend, uniqueId, rank, previous, next, viewTag, epoch);
        }
    }

    private static Backend backend(JsonParser p, JsonToken value) {
        String wire = text(p, value);
        try {
            return wire == null ? null : Backend.fromWire(wire);
        } catch (IllegalArgumentException e) { // as databind reports a creator's refusal: a JacksonException
            throw new StreamReadException(p, e.getMessage(), e);
        }
    }

    private static Member member(JsonParser p, JsonToken value) {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(p, value, JsonToken.START_OBJECT);
        int rank = 0;
        String instanceId = null;
        String endpoint = null;
        String host = null;
        String device = null;
        for (String name = nextProperty(p); name != null; name = nextProperty(p)) {
            JsonToken v = p.currentToken();
            switch (name) {
                case "rank" -> rank = v == JsonToken.VALUE_NULL ? 0 : p.getIntValue();
                case "instanceId" -> instanceId = text(p, v);
                case "endpoint" -> endpoint = text(p, v);
                case "host" -> host = text(p, v);
                case "device" -> device = text(p, v);
                default -> p.skipChildren();
            }
        }
        return new Member(rank, instanceId, endpoint, host, device);
    }

    /** The next property's name, with the parser on its value; null at the end of the object. */
    private static String nextProperty(JsonParser p) {
        JsonToken t = p.nextToken();
        if (t == JsonToken.END_OBJECT) {
            return null;
        }
        expect(p, t, JsonToken.PROPERTY_NAME);
        String name = p.currentName();
        p.nextToken();
        return name;
    }

    private static String text(JsonParser p, JsonToken value) {
        if (value == JsonToken.VALUE_NULL) {
            return null;
        }
        expect(p, value, JsonToken.VALUE_STRING);
        return p.getString();
    }

    private static void expect(JsonParser p, JsonToken actual, JsonToken expected) {
        if (actual != expected) {
            throw new StreamReadException(p, "expected " + expected + " but found " + actual);
        }
    }
}
