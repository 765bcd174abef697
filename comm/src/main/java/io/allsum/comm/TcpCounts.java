package io.allsum.comm;

/**
 * The kernel's TCP counters for one connection to a peer: segments sent and segments sent again (lost, or presumed
 * lost, on the way). Both only grow; the difference of two readings covers the time between them.
 */
public record TcpCounts(long segmentsOut, long retransmits) {

    public TcpCounts {
        if (segmentsOut < 0 || retransmits < 0) {
            throw new IllegalArgumentException("TCP counters are never negative: " + segmentsOut + ", " + retransmits);
        }
    }

    /** What was sent between {@code earlier} and this reading (0 where a counter went back: a new connection). */
    public TcpCounts since(TcpCounts earlier) {
        return new TcpCounts(Math.max(0, segmentsOut - earlier.segmentsOut),
                Math.max(0, retransmits - earlier.retransmits));
    }
}
