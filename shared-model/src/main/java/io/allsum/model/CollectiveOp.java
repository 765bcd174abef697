package io.allsum.model;

import com.fasterxml.jackson.annotation.JsonCreator;

import java.util.List;
import java.util.function.IntToDoubleFunction;

/**
 * The collectives a job can run, each constant stating its facts that need no communicator: how a size in bytes
 * becomes the call's element counts ({@link #shape}), the bus-bandwidth factor (nccl-tests' doc/PERFORMANCE.md:
 * busbw = algbw x factor(n)), whether it reduces, has a root, or runs in place. A size is the op's whole buffer as
 * nccl-tests counts it: the gathered output of all-gather, the full input of reduce-scatter. How each runs on a
 * communicator, and what it computes, is comm's {@code io.allsum.comm.Collective}.
 */
public enum CollectiveOp implements WireEnum {
    ALL_REDUCE(Split.NONE, n -> 2.0 * (n - 1) / n, Trait.REDUCES),
    ALL_GATHER(Split.RECV, n -> (double) (n - 1) / n),
    REDUCE_SCATTER(Split.SEND, n -> (double) (n - 1) / n, Trait.REDUCES),
    BROADCAST(Split.NONE, n -> 1.0, Trait.ROOTED),
    REDUCE(Split.NONE, n -> 1.0, Trait.REDUCES, Trait.ROOTED),
    /**
     * Every rank sends to rank+1 and receives from rank-1 (nccl-tests sendrecv_perf); no in-place form, since a
     * rank would overwrite what it still has to send.
     */
    SEND_RECV(Split.NONE, n -> 1.0, Trait.NO_IN_PLACE);

    /** Which buffer of a call holds one share per rank: neither, the receive (gathered) or the send (scattered). */
    private enum Split { NONE, RECV, SEND }

    private enum Trait { REDUCES, ROOTED, NO_IN_PLACE }

    private final Split split;
    private final IntToDoubleFunction busFactor;
    private final boolean reduces;
    private final boolean rooted;
    private final boolean runsInPlace;

    CollectiveOp(Split split, IntToDoubleFunction busFactor, Trait... traits) {
        List<Trait> has = List.of(traits);
        this.split = split;
        this.busFactor = busFactor;
        this.reduces = has.contains(Trait.REDUCES);
        this.rooted = has.contains(Trait.ROOTED);
        this.runsInPlace = !has.contains(Trait.NO_IN_PLACE);
    }

    /**
     * The element counts of one call for a size: {@code bytes}, the size rounded to whole elements (and, for
     * all-gather and reduce-scatter, to a multiple of the world size); {@code count}, the count passed to the call
     * (nccl-tests' "count" column: each rank's share for all-gather and reduce-scatter, the whole buffer otherwise);
     * the send and receive buffers' elements on one rank.
     */
    public record Shape(long bytes, long count, long sendElements, long recvElements) {
    }

    /** nccl-tests' factor from algorithm bandwidth to bus bandwidth for a world of n ranks. */
    public double busBandwidthFactor(int n) {
        return busFactor.applyAsDouble(n);
    }

    /** Algorithm bandwidth in GB/s (1e9 bytes per second) of {@code bytes} moved in {@code timeMicros}; 0 for no time. */
    public static double algBandwidthGBps(long bytes, double timeMicros) {
        return timeMicros > 0 ? bytes / timeMicros / 1e3 : 0.0;
    }

    /** Bus bandwidth in GB/s of this op moving {@code bytes} in {@code timeMicros} on {@code n} ranks. */
    public double busBandwidthGBps(long bytes, double timeMicros, int n) {
        return algBandwidthGBps(bytes, timeMicros) * busBandwidthFactor(n);
    }

    /** Whether the op takes a reduction operator (the "redop" column). */
    public boolean reduces() {
        return reduces;
    }

    /** Whether the op has a root (the "root" column). */
    public boolean rooted() {
        return rooted;
    }

    /** Whether the op has an in-place form. */
    public boolean runsInPlace() {
        return runsInPlace;
    }

    /** Elements a size is a whole multiple of: each rank's share is a whole number of elements. */
    public long granuleElements(int worldSize) {
        return split == Split.NONE ? 1 : worldSize;
    }

    /** The counts of one call of {@code bytes} (rounded down to {@link #granuleElements}) of elementBytes-wide values. */
    public Shape shape(int elementBytes, long bytes, int worldSize) {
        long elements = bytes / elementBytes;
        if (split == Split.NONE) {
            return new Shape(elements * elementBytes, elements, elements, elements);
        }
        long share = elements / worldSize;
        long whole = share * worldSize;
        return new Shape(whole * elementBytes, share, split == Split.SEND ? whole : share,
                split == Split.RECV ? whole : share);
    }

    /**
     * The bytes one rank allocates for a job whose largest size is {@code maxBytes}: one buffer in place (the larger
     * of send and receive), else both, at least one element each.
     */
    public long bufferBytes(int elementBytes, long maxBytes, int worldSize, boolean inPlace) {
        Shape s = shape(elementBytes, maxBytes, worldSize);
        long send = Math.max(1, s.sendElements()) * elementBytes;
        long recv = Math.max(1, s.recvElements()) * elementBytes;
        return inPlace && runsInPlace() ? Math.max(send, recv) : send + recv;
    }

    @JsonCreator
    public static CollectiveOp fromWire(String value) {
        return WireEnum.parse(CollectiveOp.class, value == null ? null : value.replace('-', '_'));
    }

    @Override
    public String toString() {
        return wireName();
    }
}
