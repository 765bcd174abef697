package io.allsum.server.rendezvous;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

class ViewEncoderTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final ViewEncoder encoder = new ViewEncoder(JSON);

    @Test
    void theTemplatedNcclAnswerReadsBackAsEachRanksOwnView() {
        EncodedView view = view(Backend.NCCL, 1001);

        for (int rank : new int[] {0, 1, 9, 10, 999, 1000}) {
            byte[] templated = encoder.rankBody(view, rank);
            assertThat(JSON.readValue(templated, RankView.class)).isEqualTo(view.rankView(rank));
            assertThat(new String(templated)).doesNotContain("null", "previous", "members")
                    .contains("\"rank\":" + rank + ",");
            RankView read = JSON.readValue(templated, RankView.class);
            assertThat(read.rank()).isEqualTo(rank);
            assertThat(read.uniqueId()).isEqualTo("aWQ=");
            assertThat(read.viewTag()).isEqualTo("e-1");
        }
    }

    @Test
    void theTemplatesStreamedJsonIsTheBytesDatabindWrites() {
        for (EncodedView view : List.of(view(Backend.NCCL, 5),
                new EncodedView(new GroupView("g \"quoted\" é", 7, 2, Backend.NCCL, null, List.of(), null), "t"))) {
            for (int rank : new int[] {-1, 0, 4}) {
                RankView rankView = view.rankView(rank);
                assertThat(new String(encoder.rankJson(rankView), StandardCharsets.UTF_8))
                        .isEqualTo(new String(encoderJson().writeValueAsBytes(rankView), StandardCharsets.UTF_8));
            }
        }
    }

    /** The encoder's own mapper settings (nulls left out), as databind applies them. */
    private static JsonMapper encoderJson() {
        return JSON.rebuild().withConfigOverride(RankView.class, override -> override.setInclude(
                JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL))).build();
    }

    @Test
    void aRingAnswerNamesTheNeighboursAroundTheRing() {
        EncodedView view = view(Backend.RING, 3);

        RankView first = JSON.readValue(encoder.rankBody(view, 0), RankView.class);

        assertThat(first.previous().rank()).isEqualTo(2);
        assertThat(first.next().rank()).isEqualTo(1);
        assertThat(first.previous().endpoint()).isEqualTo("h:2");
    }

    private static EncodedView view(Backend backend, int n) {
        List<Member> members = IntStream.range(0, n)
                .mapToObj(r -> new Member(r, "i" + r, backend == Backend.RING ? "h:" + r : null, null, null)).toList();
        return new EncodedView(new GroupView("g", 4, n, backend, "aWQ=", members, "e"), "e-1");
    }
}
