package io.allsum.worker.jobs;

import io.allsum.model.jobs.RankSizeResult;

/** Hears about a job's progress on this rank, one size at a time (for logs, heartbeats and progress bars). */
public interface ProgressListener {

    /** Listens to nothing. */
    ProgressListener NONE = new ProgressListener() {
    };

    /** Size {@code index} (0-based) of {@code total} is about to run. */
    default void sizeStarted(int index, int total, long bytes) {
    }

    /** Size {@code index} (0-based) of {@code total} finished with {@code result}. */
    default void sizeCompleted(int index, int total, RankSizeResult result) {
    }
}
