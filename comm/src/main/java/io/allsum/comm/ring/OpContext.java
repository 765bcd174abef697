package io.allsum.comm.ring;

import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One collective in flight: its name, its first failure (shared by the calling thread and the link writers, so
 * that whichever side fails first stops the other), and the count of received chunks the writers forward from.
 */
final class OpContext {

    final RingOp op;
    final int rank;
    private final Runnable wakeAll;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition advanced = lock.newCondition();
    private volatile int chunksReceived;
    private volatile CommException failure;

    OpContext(RingOp op, int rank, Runnable wakeAll) {
        this.op = op;
        this.rank = rank;
        this.wakeAll = wakeAll;
    }

    String phase() {
        return op.phase();
    }

    /** Called by the receiving thread once a chunk is in place (reduced) and may be forwarded. */
    void chunkReceived() {
        lock.lock();
        try {
            chunksReceived++;
            advanced.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Waits until {@code n} chunks have been received; fails on the op's failure or after {@code timeoutNanos}. */
    void awaitChunks(int n, long timeoutNanos, int waitingOnPeer) {
        if (chunksReceived >= n) {
            throwIfFailed();
            return;
        }
        long deadline = System.nanoTime() + timeoutNanos;
        lock.lock();
        try {
            while (chunksReceived < n) {
                throwIfFailed();
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new CommTimeoutException(phase(), rank, "no data arrived from peer rank " + waitingOnPeer
                            + " to forward within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
                }
                advanced.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail(new CommException(phase(), rank, "interrupted"));
            throw failure;
        } finally {
            lock.unlock();
        }
        throwIfFailed();
    }

    /** Records the first failure and wakes every thread of this op (blocked selects and waits). */
    void fail(CommException e) {
        lock.lock();
        try {
            if (failure == null) {
                failure = e;
            }
            advanced.signalAll();
        } finally {
            lock.unlock();
        }
        wakeAll.run();
    }

    CommException failure() {
        return failure;
    }

    void throwIfFailed() {
        CommException f = failure;
        if (f != null) {
            throw f;
        }
    }
}
