package io.allsum.server.rendezvous;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.function.Function;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;

/**
 * A completed generation's view, encoded once and sent as the same bytes to every rank: with N ranks the body is
 * O(N) bytes, so encoding it per answer would cost O(N^2). The gzip form is made once too, from the same JSON.
 */
public final class EncodedView {

    private final GroupView view;
    private final String tag;
    private volatile Bodies bodies;
    private volatile Bodies publicBodies;
    private volatile RankTemplate rankTemplate;

    /** The compact answer's JSON before and after the rank's digits (nccl: the only part that differs). */
    record RankTemplate(byte[] prefix, byte[] suffix) {
    }

    /** The JSON and its gzip form; both are shared and must not be modified. */
    public record Bodies(byte[] json, byte[] gzip) {
    }

    /** @param tag unique per completed generation in this server incarnation: the full view's ETag (unquoted) */
    EncodedView(GroupView view, String tag) {
        this.view = view;
        this.tag = tag;
    }

    public GroupView view() {
        return view;
    }

    public String tag() {
        return tag;
    }

    /**
     * The compact answer for one rank: the id, the generation and, for the ring, its two neighbours. A constant
     * size whatever the world size; {@code members} is complete and sorted, so a rank is its index.
     */
    RankView rankView(int rank) {
        Member previous = null;
        Member next = null;
        if (view.backend() == Backend.RING) {
            int n = view.members().size();
            previous = view.members().get((rank - 1 + n) % n);
            next = view.members().get((rank + 1) % n);
        }
        return new RankView(view.group(), view.generation(), view.worldSize(), view.backend(), view.uniqueId(), rank,
                previous, next, tag, view.epoch());
    }

    /** The rank template, made by the first caller. */
    RankTemplate rankTemplate(Function<EncodedView, RankTemplate> maker) {
        RankTemplate template = rankTemplate;
        if (template == null) {
            synchronized (this) {
                template = rankTemplate;
                if (template == null) {
                    template = maker.apply(this);
                    rankTemplate = template;
                }
            }
        }
        return template;
    }

    /**
     * The full view for {@code GET /rendezvous/{group}/view}: the same members without the unique id (a secret only
     * join answers carry), encoded once, on the first request.
     */
    Bodies publicBodies(Function<GroupView, byte[]> encoder) {
        Bodies encoded = publicBodies;
        if (encoded == null) {
            synchronized (this) {
                encoded = publicBodies;
                if (encoded == null) {
                    byte[] json = encoder.apply(new GroupView(view.group(), view.generation(), view.worldSize(),
                            view.backend(), null, view.members(), view.epoch()));
                    encoded = new Bodies(json, gzip(json));
                    publicBodies = encoded;
                }
            }
        }
        return encoded;
    }

    /** Both encodings, computed together by the first caller; callers must pass the same encoder. */
    public Bodies bodies(Function<GroupView, byte[]> encoder) {
        Bodies encoded = bodies;
        if (encoded == null) {
            synchronized (this) {
                encoded = bodies;
                if (encoded == null) {
                    byte[] json = encoder.apply(view);
                    encoded = new Bodies(json, gzip(json));
                    bodies = encoded;
                }
            }
        }
        return encoded;
    }

    /**
     * Fastest level: the member list repeats the same keys and values, so even level 1 shrinks it about tenfold,
     * and this runs on the path between the last join and the first answer.
     */
    static byte[] gzip(byte[] json) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(Math.max(64, json.length / 8));
        try (GZIPOutputStream gzip = new FastGzipOutputStream(out)) {
            gzip.write(json);
        } catch (IOException e) {
            throw new UncheckedIOException("gzip of an in-memory view failed", e);
        }
        return out.toByteArray();
    }

    private static final class FastGzipOutputStream extends GZIPOutputStream {
        FastGzipOutputStream(ByteArrayOutputStream out) throws IOException {
            super(out, 16 * 1024);
            def.setLevel(Deflater.BEST_SPEED);
        }
    }

    @Override
    public String toString() {
        return "EncodedView[" + view + "]";
    }
}
