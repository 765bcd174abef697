package io.allsum.server.rendezvous;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;
import org.springframework.stereotype.Component;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.json.JsonMapper;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
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

    /**
     * One rank's compact answer, a few hundred bytes. With nccl the answers differ only in {@code rank}: the JSON
     * around it is encoded once per generation and each answer is that plus the rank's digits. The ring's answers
     * name the rank's neighbours and are encoded per rank.
     */
    public byte[] rankBody(EncodedView view, int rank) {
        if (view.view().backend() == Backend.RING) {
            return viewJson.writeValueAsBytes(view.rankView(rank));
        }
        EncodedView.RankTemplate template = view.rankTemplate(this::rankTemplate);
        byte[] digits = Integer.toString(rank).getBytes(StandardCharsets.US_ASCII);
        byte[] body = new byte[template.prefix().length + digits.length + template.suffix().length];
        System.arraycopy(template.prefix(), 0, body, 0, template.prefix().length);
        System.arraycopy(digits, 0, body, template.prefix().length, digits.length);
        System.arraycopy(template.suffix(), 0, body, template.prefix().length + digits.length,
                template.suffix().length);
        return body;
    }

    /** The compact answer's JSON split around the rank: encoded with rank -1, which appears nowhere else. */
    private EncodedView.RankTemplate rankTemplate(EncodedView view) {
        String json = new String(rankJson(view.rankView(-1)), StandardCharsets.UTF_8);
        String marker = "\"rank\":-1";
        int at = json.indexOf(marker);
        if (at < 0 || json.indexOf(marker, at + 1) >= 0) {
            throw new IllegalStateException("the rank view's JSON does not name the rank exactly once: " + json);
        }
        int digitsAt = at + marker.length() - 2;
        return new EncodedView.RankTemplate(json.substring(0, digitsAt).getBytes(StandardCharsets.UTF_8),
                json.substring(digitsAt + 2).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * An nccl rank view as {@link #viewJson} writes it (same properties, order and null handling; ViewEncoderTest
     * compares the bytes), through the streaming generator: the template is made once per generation, on the way to
     * the first answer, and that code never gets compiled. Databind's bean serializer took about 0.17 ms there on
     * the 32-core host, the generator a fraction of it.
     */
    byte[] rankJson(RankView view) {
        if (view.previous() != null || view.next() != null) {
            throw new IllegalArgumentException("only an nccl rank view (no neighbours) is written here");
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream(256);
        try (JsonGenerator json = viewJson.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringProperty("group", view.group());
            json.writeNumberProperty("generation", view.generation());
            json.writeNumberProperty("worldSize", view.worldSize());
            json.writeStringProperty("backend", view.backend().wireName());
            if (view.uniqueId() != null) {
                json.writeStringProperty("uniqueId", view.uniqueId());
            }
            json.writeNumberProperty("rank", view.rank());
            if (view.viewTag() != null) {
                json.writeStringProperty("viewTag", view.viewTag());
            }
            if (view.epoch() != null) {
                json.writeStringProperty("epoch", view.epoch());
            }
            json.writeEndObject();
        }
        return out.toByteArray();
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
