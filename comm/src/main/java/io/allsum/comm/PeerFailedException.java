package io.allsum.comm;

/** A peer died, closed its connection or stayed silent past the deadline. Names that peer. */
public class PeerFailedException extends CommException {

    private final int peerRank;

    public PeerFailedException(String phase, int rank, int peerRank, String message, Throwable cause) {
        super(phase, rank, "peer rank " + peerRank + " " + message, cause);
        this.peerRank = peerRank;
    }

    public int peerRank() {
        return peerRank;
    }
}
