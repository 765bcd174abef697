package io.allsum.comm;

/**
 * A collective or set-up step failed. The message names the phase (init, all_reduce, ...), this rank, and the
 * cause (an NCCL error string, the peer that died, the deadline that passed).
 */
public class CommException extends RuntimeException {

    private final String phase;
    private final int rank;

    public CommException(String phase, int rank, String message) {
        this(phase, rank, message, null);
    }

    public CommException(String phase, int rank, String message, Throwable cause) {
        super(phase + " failed on rank " + rank + ": " + message, cause);
        this.phase = phase;
        this.rank = rank;
    }

    public String phase() {
        return phase;
    }

    public int rank() {
        return rank;
    }
}
