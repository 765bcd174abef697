package io.allsum.worker.jobs;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's place in its group's job order: the seq of the last job received, sent as {@code after} on the next
 * poll. The server numbers jobs per group and keeps the numbering across its restarts, so the cursor normally only
 * grows. It follows the server's seq even backwards: a server that lost its history answers a cursor beyond every
 * seq it knows with its own first jobs, and the cursor must then continue from those. Touched by one thread.
 */
public final class JobCursor {

    private static final Logger log = LoggerFactory.getLogger(JobCursor.class);

    private long after;

    /** The {@code after} for the next poll; 0 before any job. */
    public long after() {
        return after;
    }

    /** Moves the cursor to a job just received. */
    public void received(long seq) {
        if (seq <= after) {
            log.warn("The server handed job seq {} after seq {}: it has another job history now (restarted without"
                    + " its database?); following its numbering", seq, after);
        }
        after = seq;
    }

    /** Forgets the position, for a server known to be a new one with a new history. */
    public void reset() {
        after = 0;
    }
}
