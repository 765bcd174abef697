package io.allsum.worker.jobs;

import io.allsum.model.CollectiveOp;

/**
 * The element counts of one collective call for a size as nccl-tests counts it. {@code bytes} is the op's whole
 * buffer (for all-gather the gathered output, for reduce-scatter the full input); {@code count} is the count passed
 * to the call, which nccl-tests prints in its "count" column: each rank's share for all-gather and reduce-scatter,
 * the whole buffer otherwise.
 */
record CollectiveShape(long bytes, long count, long sendElements, long recvElements) {

    static CollectiveShape of(CollectiveOp op, int elementBytes, long bytes, int worldSize) {
        long elements = bytes / elementBytes;
        return switch (op) {
            case ALL_GATHER -> {
                long share = elements / worldSize;
                yield new CollectiveShape(share * worldSize * elementBytes, share, share, share * worldSize);
            }
            case REDUCE_SCATTER -> {
                long share = elements / worldSize;
                yield new CollectiveShape(share * worldSize * elementBytes, share, share * worldSize, share);
            }
            case ALL_REDUCE, BROADCAST, REDUCE, SEND_RECV ->
                    new CollectiveShape(elements * elementBytes, elements, elements, elements);
        };
    }
}
