package io.allsum.comm;

import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.util.ArrayList;
import java.util.List;

/**
 * How each {@link CollectiveOp} runs on a {@link Communicator} and what it computes, one constant per op, as
 * nccl-tests' {@code testColl} does ({@code runColl} and {@code initData}): the call, where a rank's inputs go and
 * what its outputs must hold. Sizes and bus bandwidth are the op's own facts ({@link CollectiveOp#shape}).
 */
public enum Collective {
    ALL_REDUCE(CollectiveOp.ALL_REDUCE) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            return () -> comm.allReduce(send, recv, count, type, redop);
        }

        @Override
        public List<Block> outputs(Placement p) {
            return List.of(new Block(true, 0, p.count(), Block.REDUCED, 0));
        }
    },
    ALL_GATHER(CollectiveOp.ALL_GATHER) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            return () -> comm.allGather(send, recv, count, type);
        }

        @Override
        public List<Block> inputs(Placement p) {
            return List.of(new Block(false, p.inPlace() ? p.rank() * p.count() : 0, p.count(), p.rank(), 0));
        }

        @Override
        public List<Block> outputs(Placement p) {
            List<Block> blocks = new ArrayList<>(p.size());
            for (int q = 0; q < p.size(); q++) {
                blocks.add(new Block(true, q * p.count(), p.count(), q, 0));
            }
            return blocks;
        }
    },
    REDUCE_SCATTER(CollectiveOp.REDUCE_SCATTER) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            return () -> comm.reduceScatter(send, recv, count, type, redop);
        }

        @Override
        public List<Block> inputs(Placement p) {
            return List.of(new Block(false, 0, p.count() * p.size(), p.rank(), 0));
        }

        @Override
        public List<Block> outputs(Placement p) {
            long mine = p.rank() * p.count();
            return List.of(new Block(true, p.inPlace() ? mine : 0, p.count(), Block.REDUCED, mine));
        }
    },
    BROADCAST(CollectiveOp.BROADCAST) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            return () -> comm.broadcast(send, recv, count, type, root);
        }

        @Override
        public List<Block> inputs(Placement p) {
            return p.rank() == p.root() ? super.inputs(p) : List.of();
        }

        @Override
        public List<Block> outputs(Placement p) {
            return List.of(new Block(true, 0, p.count(), p.root(), 0));
        }
    },
    REDUCE(CollectiveOp.REDUCE) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            return () -> comm.reduce(send, recv, count, type, redop, root);
        }

        @Override
        public List<Block> outputs(Placement p) {
            return p.rank() == p.root() ? ALL_REDUCE.outputs(p) : List.of();
        }
    },
    SEND_RECV(CollectiveOp.SEND_RECV) {
        @Override
        public Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                             ReduceOp redop, int root) {
            int rank = comm.rank();
            int size = comm.size();
            int next = (rank + 1) % size;
            int previous = (rank - 1 + size) % size;
            return () -> comm.sendRecv(send, next, recv, previous, count, type);
        }

        @Override
        public List<Block> outputs(Placement p) {
            return List.of(new Block(true, 0, p.count(), (p.rank() - 1 + p.size()) % p.size(), 0));
        }
    };

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

    private final CollectiveOp op;

    Collective(CollectiveOp op) {
        this.op = op;
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
    public abstract Runnable bind(Communicator comm, CommBuffer send, CommBuffer recv, long count, DataType type,
                                  ReduceOp redop, int root);

    /** Where this rank's inputs go before a call; most ops read the count elements at the start of send. */
    public List<Block> inputs(Placement p) {
        return List.of(new Block(false, 0, p.count(), p.rank(), 0));
    }

    /** Where this rank's results land after a call and what they must be; nothing where the rank gets none. */
    public abstract List<Block> outputs(Placement p);
}
