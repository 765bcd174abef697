package io.allsum.client;

import io.allsum.client.ClientTransport.Answer;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import tools.jackson.core.JacksonException;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The client's JSON: request bodies written, answers read into their records, error answers read as problems. A
 * join and its compact answer go through {@link JoinWire} (cheap when cold, as a worker's join always is).
 */
final class ClientCodec {

    private final JsonMapper json = AllsumJson.mapper();

    /** {@code body} as JSON bytes; null for none. */
    byte[] write(Object body) {
        if (body == null) {
            return null;
        }
        return body instanceof JoinRequest join ? JoinWire.request(json, join) : json.writeValueAsBytes(body);
    }

    /** A 2xx answer's body as {@code type}, null for {@code Void}; any other status as its problem. */
    <T> T expect2xx(Answer answer, Class<T> type, String method, String path) {
        if (answer.status() / 100 != 2) {
            throw problem(answer, method, path);
        }
        return type == Void.class ? null : read(answer, type, method, path);
    }

    /** The error answer as an exception (see {@link ProblemAnswers#problem}). */
    AllsumClientException problem(Answer answer, String method, String path) {
        return ProblemAnswers.problem(json, answer.status(), answer.body(), method, path);
    }

    <T> T read(Answer answer, Class<T> type, String method, String path) {
        try {
            return type == RankView.class ? type.cast(JoinWire.rankView(json, answer.body()))
                    : json.readValue(answer.body(), type);
        } catch (JacksonException e) {
            throw unreadable(method, path, answer, e);
        }
    }

    <T> T read(Answer answer, TypeReference<T> type, String method, String path) {
        try {
            return json.readValue(answer.body(), type);
        } catch (JacksonException e) {
            throw unreadable(method, path, answer, e);
        }
    }

    private static AllsumClientException unreadable(String method, String path, Answer answer, JacksonException e) {
        return new AllsumClientException(answer.status(), "Unreadable answer", method + " " + path
                + " answered " + answer.status() + " with a body that is not the expected JSON: "
                + e.getOriginalMessage(), false, e);
    }
}
