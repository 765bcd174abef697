package io.allsum.comm.nccl;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * The backstop for blocking communicators (PyTorch ProcessGroupNCCL's design): a daemon thread that looks at every
 * watched communicator a few times a second and aborts one whose calling thread has been inside the same blocking
 * NCCL call (an enqueue that waits on a dead peer, a finalize) for longer than the communicator's deadline. Work that
 * is already enqueued is watched by the calling thread itself, which polls the stream, {@code ncclCommGetAsyncError}
 * and the deadline; this thread only covers a call that never returns. The hot path pays two ordered stores per call
 * ({@link NcclCommunicator#enterNative}), no clock read.
 */
final class NcclWatchdog implements AutoCloseable {

    static final long PERIOD_NANOS = 50_000_000L;

    private final String name;
    private final Set<NcclCommunicator> watched = ConcurrentHashMap.newKeySet();
    private volatile Thread thread;
    private volatile boolean closed;

    NcclWatchdog(String name) {
        this.name = name;
    }

    void watch(NcclCommunicator communicator) {
        watched.add(communicator);
        startOnce();
    }

    void unwatch(NcclCommunicator communicator) {
        watched.remove(communicator);
    }

    private synchronized void startOnce() {
        if (thread == null && !closed) {
            thread = Thread.ofPlatform().name(name).daemon(true).start(this::loop);
        }
    }

    private void loop() {
        while (!closed) {
            long now = System.nanoTime();
            for (NcclCommunicator communicator : watched) {
                try {
                    communicator.checkStuck(now);
                } catch (RuntimeException e) {
                    // An abort that failed must not stop the watch over the other communicators.
                }
            }
            LockSupport.parkNanos(PERIOD_NANOS);
        }
    }

    @Override
    public void close() {
        closed = true;
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
