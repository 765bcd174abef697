package io.allsum.server.rendezvous;

import io.allsum.model.rendezvous.GroupView;

import java.util.function.Function;

/**
 * A completed generation's view, encoded once and sent as the same bytes to every rank: with N ranks the body is
 * O(N) bytes, so encoding it per answer would cost O(N^2).
 */
public final class EncodedView {

    private final GroupView view;
    private volatile byte[] encoded;

    EncodedView(GroupView view) {
        this.view = view;
    }

    public GroupView view() {
        return view;
    }

    /** The encoding, computed by the first caller; callers must pass the same encoder. */
    public byte[] bytes(Function<GroupView, byte[]> encoder) {
        byte[] bytes = encoded;
        if (bytes == null) {
            synchronized (this) {
                bytes = encoded;
                if (bytes == null) {
                    bytes = encoder.apply(view);
                    encoded = bytes;
                }
            }
        }
        return bytes;
    }

    @Override
    public String toString() {
        return "EncodedView[" + view + "]";
    }
}
