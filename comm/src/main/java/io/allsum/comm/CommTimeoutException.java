package io.allsum.comm;

/** A collective or the communicator's set-up did not finish before its deadline; the communicator was aborted. */
public class CommTimeoutException extends CommException {

    public CommTimeoutException(String phase, int rank, String message) {
        super(phase, rank, message);
    }
}
