package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JoinWireTest {

    private final JsonMapper json = AllsumJson.mapper();

    private static final Member LEFT = new Member(3, "i-3", "10.0.0.3:29500", "node-3", "cpu");
    private static final Member RIGHT = new Member(5, "i-5", null, null, null);

    @Test
    void writesEveryJoinRequestByteForByteAsTheMapperDoes() {
        List<JoinRequest> requests = List.of(
                new JoinRequest("g", 0, 2, "i-0", Backend.NCCL, "AAEC", null, "host", "cuda:0"),
                new JoinRequest("g", 1, 2, "i-1", Backend.NCCL, null, null, null, null, 7L),
                new JoinRequest("ring \"q\" \\ é \u0001 \u2028", 4, 8, "i-4", Backend.RING, null, "[::1]:29500",
                        "h\tost", "cpu"),
                new JoinRequest(null, null, null, null, null, null, null, null, null, null),
                new JoinRequest("g", Integer.MAX_VALUE, Integer.MIN_VALUE, "", Backend.RING, "", "", "", "",
                        Long.MIN_VALUE));
        for (JoinRequest request : requests) {
            assertThat(new String(JoinWire.request(json, request), StandardCharsets.UTF_8)).as(request.toString())
                    .isEqualTo(json.writeValueAsString(request));
        }
    }

    @Test
    void readsEveryRankViewTheMapperWritesAsTheSameRecord() {
        List<RankView> views = List.of(
                new RankView("g", 3, 64, Backend.NCCL, "AAEC", 17, null, null, "\"e-9\"", "e"),
                new RankView("ring é \"x\"", Long.MAX_VALUE, 8, Backend.RING, null, 4, LEFT, RIGHT, null, null),
                new RankView(null, 0, 0, null, null, 0, null, null, null, null));
        for (RankView view : views) {
            assertThat(JoinWire.rankView(json, json.writeValueAsBytes(view))).isEqualTo(view);
        }
    }

    @Test
    void readsANewerServersAnswerAsTheMapperDoes() {
        String answer = """
                {"hint":{"a":[1,{"b":null}]},"rank":2,"group":"g","generation":null,"worldSize":4,"backend":"ring",
                 "previous":{"rank":1,"zone":"z","instanceId":"i-1"},"next":null,"viewTag":"t","epoch":"e","more":[]}""";
        assertThat(JoinWire.rankView(json, bytes(answer)))
                .isEqualTo(json.readValue(answer, RankView.class))
                .isEqualTo(new RankView("g", 0, 4, Backend.RING, null, 2, new Member(1, "i-1", null, null, null),
                        null, "t", "e"));
    }

    @Test
    void refusesWhatIsNotOneRankView() {
        for (String body : List.of("", "[]", "\"view\"", "{\"rank\":1", "{\"rank\":1} {}", "{\"rank\":\"one\"}",
                "{\"backend\":\"mpi\"}", "{\"previous\":[1]}", "{\"group\":{}}", "not json")) {
            assertThatThrownBy(() -> JoinWire.rankView(json, bytes(body))).as(body)
                    .isInstanceOf(JacksonException.class);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
