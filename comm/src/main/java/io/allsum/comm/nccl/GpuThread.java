package io.allsum.comm.nccl;

import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one platform thread that makes every CUDA/NCCL call for one GPU. {@code cudaSetDevice} is per OS thread and a
 * virtual thread may change carriers, so every call is funnelled here. Calls made from this thread itself run
 * inline: that keeps the timed loop of {@link NcclCommunicator#timeNanos} free of thread hand-offs.
 */
final class GpuThread implements AutoCloseable {

    private final String name;
    private final ExecutorService executor;
    private volatile Thread thread;

    GpuThread(String name) {
        this.name = name;
        this.executor = Executors.newSingleThreadExecutor(runnable -> {
            Thread t = Thread.ofPlatform().name(name).daemon(true).unstarted(runnable);
            thread = t;
            return t;
        });
    }

    boolean isCurrent() {
        return Thread.currentThread() == thread;
    }

    /**
     * Runs {@code task} on the GPU thread and waits at most {@code timeout}. The task itself is expected to honour
     * its own deadline (it polls NCCL); this wait is the backstop for a native call that never returns.
     */
    <T> T call(String phase, int rank, Duration timeout, Callable<T> task) {
        if (isCurrent()) {
            return runInline(phase, rank, task);
        }
        Future<T> future;
        try {
            future = executor.submit(task);
        } catch (RejectedExecutionException e) {
            throw new CommException(phase, rank, "the GPU thread " + name + " is shut down", e);
        }
        try {
            return future.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            future.cancel(true);
            throw new CommTimeoutException(phase, rank, "no answer from GPU thread " + name + " within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException(phase, rank, "interrupted while waiting for the GPU thread", e);
        } catch (CancellationException e) {
            throw new CommException(phase, rank, "cancelled", e);
        } catch (ExecutionException e) {
            throw rethrow(phase, rank, e.getCause());
        }
    }

    void run(String phase, int rank, Duration timeout, Runnable task) {
        call(phase, rank, timeout, () -> {
            task.run();
            return null;
        });
    }

    private static <T> T runInline(String phase, int rank, Callable<T> task) {
        try {
            return task.call();
        } catch (Exception e) {
            throw rethrow(phase, rank, e);
        }
    }

    private static RuntimeException rethrow(String phase, int rank, Throwable cause) {
        if (cause instanceof RuntimeException re) {
            return re;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        return new CommException(phase, rank, String.valueOf(cause), cause);
    }

    @Override
    public void close() {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(10, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
