package io.allsum.worker.agent;

/** The agent cannot go on: the server rejected this worker for good, or restarts ran out. */
class FatalAgentException extends RuntimeException {

    private final int exitCode;

    FatalAgentException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    int exitCode() {
        return exitCode;
    }
}
