package io.allsum.comm;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

/**
 * Runs a few thousand one-element all-reduces through {@link Communicator#timeNanos} right after a communicator is
 * built, so the JIT has compiled the enqueue path before the first measured job. With NCCL a small collective costs
 * a few microseconds of host time, and interpreted code would otherwise dominate the first sweep. Collective: every
 * rank of the generation runs it, in the same place (after creating the communicator).
 */
public final class HotPathWarmup {

    /**
     * Past C2's default compile threshold (Tier4InvocationThreshold 5,000, which packaging/jvm/worker-nccl.jvmargs
     * keeps for NCCL workers) with room for the compile itself: ~60-100 ms at 5-10 us per call.
     */
    static final int CALLS = 10_000;

    private HotPathWarmup() {
    }

    /** Warms NCCL communicators; the ring's per-call cost is socket-bound, so it is left alone. */
    public static void warm(Communicator comm) {
        if (comm.backend() != Backend.NCCL) {
            return;
        }
        try (CommBuffer one = comm.allocate(DataType.FLOAT32.bytes())) {
            comm.timeNanos(() -> {
                for (int i = 0; i < CALLS; i++) {
                    comm.allReduce(one, one, 1, DataType.FLOAT32, ReduceOp.SUM);
                }
            });
        }
    }
}
