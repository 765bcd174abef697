package io.allsum.web;

import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one shape of every problem server and worker answer, whoever writes it, as Spring's mixin and Jackson 3 order
 * it: {@code detail}, {@code instance} (when the request's path is known), {@code status}, {@code title}, then
 * {@code code}; no {@code type} (RFC 9457: absent is {@code about:blank}).
 */
public final class ProblemShape {

    private static final JsonMapper JSON = JsonMapper.shared();

    private ProblemShape() {
    }

    /**
     * Asserts {@code body} is exactly that shape.
     *
     * @param instance the expected {@code instance}; null when the problem has none
     */
    public static Map<String, Object> assertShape(String body, int status, String code, String instance) {
        Map<String, Object> members = JSON.readValue(body, new TypeReference<LinkedHashMap<String, Object>>() {
        });
        List<String> expected = new ArrayList<>(List.of("detail"));
        if (instance != null) {
            expected.add("instance");
        }
        expected.addAll(List.of("status", "title", "code"));
        assertThat(List.copyOf(members.keySet())).as(body).isEqualTo(expected);
        assertThat(members.get("status")).as(body).isEqualTo(status);
        assertThat(members.get("code")).as(body).isEqualTo(code);
        assertThat((String) members.get("title")).as(body).isNotBlank();
        assertThat((String) members.get("detail")).as(body).isNotBlank();
        if (instance != null) {
            assertThat(members.get("instance")).as(body).isEqualTo(instance);
        }
        return members;
    }
}
