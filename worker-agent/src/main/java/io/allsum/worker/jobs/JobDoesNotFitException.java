package io.allsum.worker.jobs;

/**
 * This rank cannot hold a job's buffers: the job fails on this rank before any collective, the communicator stays
 * usable and the worker takes the next job.
 */
public final class JobDoesNotFitException extends RuntimeException {

    public JobDoesNotFitException(String message) {
        super(message);
    }
}
