package io.allsum.comm;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * How each {@link CollectiveOp} runs on a {@link Communicator} and what it computes, one constant per op, as
 * nccl-tests' {@code testColl} does ({@code runColl} and {@code initData}): the call, where a rank's inputs go and
 * what its outputs must hold. Sizes and bus bandwidth are the op's own facts ({@link CollectiveOp#shape}).
 */
public enum Collective {
    ALL_REDUCE(CollectiveOp.ALL_REDUCE, (comm, send, recv, count, type, redop, root)
            -> () -> comm.allReduce(send, recv, count, type, redop),
            Collective::ownCount, Collective::reducedCount),
    ALL_GATHER(CollectiveOp.ALL_GATHER, (comm, send, recv, count, type, redop, root)
            -> () -> comm.allGather(send, recv, count, type),
            p -> List.of(new Block(false, p.inPlace() ? p.rank() * p.count() : 0, p.count(), p.rank(), 0)),
            Collective::everyRanksCount),
    REDUCE_SCATTER(CollectiveOp.REDUCE_SCATTER, (comm, send, recv, count, type, redop, root)
            -> () -> comm.reduceScatter(send, recv, count, type, redop),
            p -> List.of(new Block(false, 0, p.count() * p.size(), p.rank(), 0)),
            p -> List.of(new Block(true, p.inPlace() ? p.rank() * p.count() : 0, p.count(), Block.REDUCED,
                    p.rank() * p.count()))),
    BROADCAST(CollectiveOp.BROADCAST, (comm, send, recv, count, type, redop, root)
            -> () -> comm.broadcast(send, recv, count, type, root),
            p -> p.rank() == p.root() ? ownCount(p) : List.of(),
            p -> List.of(new Block(true, 0, p.count(), p.root(), 0))),
    REDUCE(CollectiveOp.REDUCE, (comm, send, recv, count, type, redop, root)
            -> () -> comm.reduce(send, recv, count, type, redop, root),
            Collective::ownCount,
            p -> p.rank() == p.root() ? reducedCount(p) : List.of()),
    SEND_RECV(CollectiveOp.SEND_RECV, Collective::ringExchange, Collective::ownCount,
            p -> List.of(new Block(true, 0, p.count(), (p.rank() - 1 + p.size()) % p.size(), 0)));

    /** Where a call runs: this rank of {@code size}, the op's root, the call's count, and whether in place. */
    public record Placement(int rank, int size, int root, long count, boolean inPlace) {
    }

    /**
     * {@code elements} elements at element {@code offset} of the receive buffer (else the send buffer; the same one
     * in place): element j is rank {@code source}'s input element {@code sourceOffset + j}, or for
     * {@link #REDUCED} the reduction over all ranks of that input element.
     */
    public record Block(boolean recv, long offset, long elements, int source, long sourceOffset) {
        public static final int REDUCED = -1;
    }

    private static final Collective[] BY_OP = new Collective[CollectiveOp.values().length];

    static {
        for (Collective c : values()) {
            BY_OP[c.op.ordinal()] = c;
        }
    }

    /** The call of one op, as {@link #bind} describes it. */
    @FunctionalInterface
    private interface Binder {
        Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp redop,
                      int root);
    }

    private final CollectiveOp op;
    private final Binder binder;
    private final Function<Placement, List<Block>> inputs;
    private final Function<Placement, List<Block>> outputs;

    Collective(CollectiveOp op, Binder binder, Function<Placement, List<Block>> inputs,
               Function<Placement, List<Block>> outputs) {
        this.op = op;
        this.binder = binder;
        this.inputs = inputs;
        this.outputs = outputs;
    }

    /** The descriptor of {@code op}. */
    public static Collective of(CollectiveOp op) {
        Collective c = BY_OP[op.ordinal()];
        if (c == null) {
            throw new IllegalStateException("no descriptor of " + op);
        }
        return c;
    }

    public CollectiveOp op() {
        return op;
    }

    /**
     * One call of the op on {@code comm} with these buffers and count ({@link CollectiveOp.Shape#count()}), ready to
     * repeat: what it derives (peers, say) is computed here once, not per call. {@code redop} and {@code root} are
     * read only by the ops that take them.
     */
    public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                         ReduceOp redop, int root) {
        return binder.bind(comm, send, recv, count, type, redop, root);
    }

    /** Where this rank's inputs go before a call; nothing where the rank sends none. */
    public List<Block> inputs(Placement p) {
        return inputs.apply(p);
    }

    /** Where this rank's results land after a call and what they must be; nothing where the rank gets none. */
    public List<Block> outputs(Placement p) {
        return outputs.apply(p);
    }

    /** This rank's count elements at the start of send: most ops' input. */
    private static List<Block> ownCount(Placement p) {
        return List.of(new Block(false, 0, p.count(), p.rank(), 0));
    }

    /** The reduction of every rank's count elements, at the start of recv. */
    private static List<Block> reducedCount(Placement p) {
        return List.of(new Block(true, 0, p.count(), Block.REDUCED, 0));
    }

    /** Rank q's count elements at element q x count of recv, for every rank q. */
    private static List<Block> everyRanksCount(Placement p) {
        List<Block> blocks = new ArrayList<>(p.size());
        for (int q = 0; q < p.size(); q++) {
            blocks.add(new Block(true, q * p.count(), p.count(), q, 0));
        }
        return blocks;
    }

    /** Send to the next rank while receiving from the previous one. */
    private static Runnable ringExchange(Communicator comm, CommBuffer send, CommBuffer recv, long count,
                                         DataType type, ReduceOp redop, int root) {
        int rank = comm.rank();
        int size = comm.size();
        int next = (rank + 1) % size;
        int previous = (rank - 1 + size) % size;
        return () -> comm.sendRecv(send, next, recv, previous, count, type);
    }
}
