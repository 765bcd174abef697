package io.allsum.comm;

/**
 * The kernel's TCP counters for one connection to a peer: segments sent, segments sent again, and how many of those
 * the peer reported it already had (DSACK): a retransmit timer that fired before a late ACK, not a loss. All only
 * grow; the difference of two readings covers the time between them.
 */
public record TcpCounts(long segmentsOut, long retransmits, long spuriousRetransmits) {

    public TcpCounts {
        if (segmentsOut < 0 || retransmits < 0 || spuriousRetransmits < 0) {
            throw new IllegalArgumentException("TCP counters are never negative: " + segmentsOut + ", " + retransmits
                    + ", " + spuriousRetransmits);
        }
    }

    /** What was sent between {@code earlier} and this reading (0 where a counter went back: a new connection). */
    public TcpCounts since(TcpCounts earlier) {
        return new TcpCounts(Math.max(0, segmentsOut - earlier.segmentsOut),
                Math.max(0, retransmits - earlier.retransmits),
                Math.max(0, spuriousRetransmits - earlier.spuriousRetransmits));
    }
}
