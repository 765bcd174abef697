package io.allsum.worker.jobs;

import io.allsum.client.AllsumClient;
import io.allsum.model.jobs.RankReport;
import io.allsum.model.jobs.RankSizeResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sends one job's progress to the server as partial reports, from one virtual thread, so that the collective loop
 * never waits on the network: each completed size replaces the snapshot waiting to go (sizes that complete faster
 * than reports go out send only the newest), and a report that fails is not retried (the next one supersedes it).
 * The last size sends none: the final report follows, through {@link ReportDelivery}; the server ignores a partial
 * report that arrives after the final one.
 */
public final class PartialReports implements ProgressListener, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PartialReports.class);

    private final AllsumClient client;
    private final String group;
    private final String jobId;
    private final int rank;
    private final String instanceId;
    private final long generation;
    /** Touched only by the job's thread. */
    private final List<RankSizeResult> measured = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition waiting = lock.newCondition();
    /** The snapshot not sent yet; null when none waits. Guarded by {@link #lock}. */
    private List<RankSizeResult> next;
    private boolean closed;
    private final Thread sender;

    public PartialReports(AllsumClient client, String group, String jobId, int rank, String instanceId,
                          long generation) {
        this.client = client;
        this.group = group;
        this.jobId = jobId;
        this.rank = rank;
        this.instanceId = instanceId;
        this.generation = generation;
        this.sender = Thread.ofVirtual().name("allsum-progress-" + jobId).start(this::sendLoop);
    }

    @Override
    public void sizeCompleted(int index, int total, RankSizeResult result) {
        measured.add(result);
        if (index + 1 >= total) {
            return;
        }
        List<RankSizeResult> snapshot = List.copyOf(measured);
        lock.lock();
        try {
            next = snapshot;
            waiting.signal();
        } finally {
            lock.unlock();
        }
    }

    /** What this rank measured so far, in sweep order (for a failed rank's final report). */
    public List<RankSizeResult> measured() {
        return List.copyOf(measured);
    }

    private void sendLoop() {
        while (true) {
            List<RankSizeResult> snapshot;
            lock.lock();
            try {
                while (next == null && !closed) {
                    waiting.awaitUninterruptibly();
                }
                if (closed) {
                    return;
                }
                snapshot = next;
                next = null;
            } finally {
                lock.unlock();
            }
            try {
                client.report(group, jobId, new RankReport(rank, instanceId, generation, true, null, snapshot, true,
                        null));
            } catch (RuntimeException e) {
                log.debug("Rank {}: progress of job {} ({} sizes) not delivered: {}", rank, jobId, snapshot.size(),
                        e.getMessage());
            }
        }
    }

    /** Sends nothing more; a report already on its way finishes on its own, without holding up the caller. */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            next = null;
            waiting.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Whether the sender thread has ended (it does soon after {@link #close()}, once a report on its way is done). */
    boolean senderEnded() {
        return !sender.isAlive();
    }
}
