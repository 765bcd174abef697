package io.allsum.server.rendezvous;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.util.function.Function;

/** The wire JSON of a {@link GroupView}, made once per generation (see {@link EncodedView}). */
@Component
public class ViewEncoder implements Function<GroupView, byte[]> {

    private final JsonMapper viewJson;

    public ViewEncoder(JsonMapper json) {
        // A member's absent endpoint, host or device is left out: at thousands of members the nulls add up.
        this.viewJson = json.rebuild()
                .withConfigOverride(Member.class, override -> override.setInclude(
                        JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL)))
                // The compact answer leaves out what the backend does not use (the neighbours with nccl).
                .withConfigOverride(RankView.class, override -> override.setInclude(
                        JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL)))
                .build();
    }

    @Override
    public byte[] apply(GroupView view) {
        return viewJson.writeValueAsBytes(view);
    }

    /** One rank's compact answer: a few hundred bytes, encoded per answer (it differs per rank). */
    public byte[] rankBody(EncodedView view, int rank) {
        return viewJson.writeValueAsBytes(view.rankView(rank));
    }

    /** The view without the unique id, both encodings, computed by the first caller. */
    public EncodedView.Bodies publicBodies(EncodedView view) {
        return view.publicBodies(this);
    }

    /** Both bodies of the view, computed by the first caller. */
    public EncodedView.Bodies bodies(EncodedView view) {
        return view.bodies(this);
    }
}
