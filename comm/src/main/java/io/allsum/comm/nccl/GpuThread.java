package io.allsum.comm.nccl;

import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;

import org.bytedeco.cuda.cudart.CUctx_st;

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
import java.util.concurrent.locks.ReentrantLock;

import static org.bytedeco.cuda.global.cudart.cuCtxGetCurrent;
import static org.bytedeco.cuda.global.cudart.cuCtxSetCurrent;
import static org.bytedeco.cuda.global.cudart.cudaGetLastError;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

/**
 * Where every CUDA/NCCL call for one GPU runs: one lock, held around each call, so calls never overlap. A platform
 * thread that finds the lock free makes the call itself, with the GPU's context made current for it and the thread's
 * own put back; that spares a program's thread two hand-offs per call. Virtual threads (which change carriers), calls
 * that find the GPU busy and calls before {@link #useDevice} go to the GPU's own platform thread, with a deadline.
 */
final class GpuThread implements AutoCloseable {

    /** The per-thread CUDA context calls, apart so that a test can count them without a GPU. */
    interface DeviceContexts {
        /** The calling thread's current context ({@code cuCtxGetCurrent}), 0 when it has none. */
        long current();

        /** {@code cudaSetDevice}: the device's primary context becomes the thread's. */
        void setDevice(int device);

        /** {@code cuCtxSetCurrent}: puts back a context that {@link #current()} returned. */
        void setCurrent(long context);

        /** {@code cudaGetLastError}: clears the thread's last CUDA runtime error. */
        void clearError();
    }

    private final String name;
    private final ExecutorService executor;
    private final DeviceContexts contexts;
    private final ReentrantLock lock = new ReentrantLock();
    private volatile boolean shutDown;
    /** -1 until {@link #useDevice}: only the GPU thread makes calls until a communicator exists. */
    private volatile int device = -1;
    private volatile long deviceContext;

    GpuThread(String name) {
        this(name, new CudaContexts());
    }

    GpuThread(String name, DeviceContexts contexts) {
        this.name = name;
        this.contexts = contexts;
        this.executor = Executors.newSingleThreadExecutor(
                runnable -> Thread.ofPlatform().name(name).daemon(true).unstarted(runnable));
    }

    /**
     * From now on callers' threads may run calls themselves, on {@code device}. Called inside a call on the GPU
     * thread, where that device is current.
     */
    void useDevice(int device) {
        deviceContext = contexts.current();
        this.device = device;
    }

    /** True inside a call: nested calls run inline. */
    boolean isCurrent() {
        return lock.isHeldByCurrentThread();
    }

    /**
     * Runs {@code task} under the GPU's lock, on this thread when the GPU is free, else on the GPU thread, waiting at
     * most {@code timeout} for it. The task honours its own deadline (it polls NCCL); the wait is the backstop for a
     * native call that never returns.
     */
    <T> T call(String phase, int rank, Duration timeout, Callable<T> task) {
        if (shutDown) {
            throw new CommException(phase, rank, "the GPU thread " + name + " is shut down");
        }
        if (isCurrent()) {
            return runInline(phase, rank, task);
        }
        int onDevice = device;
        if (onDevice >= 0 && !Thread.currentThread().isVirtual() && lock.tryLock()) {
            try {
                return onCallerThread(phase, rank, onDevice, task);
            } finally {
                lock.unlock();
            }
        }
        return onGpuThread(phase, rank, timeout, task);
    }

    void run(String phase, int rank, Duration timeout, Runnable task) {
        call(phase, rank, timeout, () -> {
            task.run();
            return null;
        });
    }

    private <T> T onCallerThread(String phase, int rank, int onDevice, Callable<T> task) {
        long own = contexts.current();
        boolean switched = own != deviceContext;
        if (switched) {
            contexts.setDevice(onDevice);
        }
        try {
            return runInline(phase, rank, task);
        } catch (Throwable failure) {
            // the exception reports our CUDA error; the program's thread must not find it later
            contexts.clearError();
            throw failure;
        } finally {
            if (switched && own != 0) {
                contexts.setCurrent(own);
            }
        }
    }

    private <T> T onGpuThread(String phase, int rank, Duration timeout, Callable<T> task) {
        Future<T> future;
        try {
            future = executor.submit(() -> {
                // interruptible: a caller that gave up cancels the task while it waits for the lock
                lock.lockInterruptibly();
                try {
                    return task.call();
                } finally {
                    lock.unlock();
                }
            });
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
        shutDown = true;
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

    /** The CUDA runtime and driver calls; every method runs under the GPU's lock, after the NCCL probe. */
    private static final class CudaContexts implements DeviceContexts {
        /** Made at first use: loading a cudart class loads the CUDA libraries, which a CPU host lacks. */
        private CUctx_st scratch;

        @Override
        public long current() {
            if (scratch == null) {
                scratch = new CUctx_st();
            }
            return cuCtxGetCurrent(scratch) == 0 ? scratch.address() : 0;
        }

        @Override
        public void setDevice(int device) {
            Nccl.checkCuda(cudaSetDevice(device), "set_device", -1, "cudaSetDevice(" + device + ")");
        }

        @Override
        public void setCurrent(long context) {
            cuCtxSetCurrent(new CUctx_st(NcclCommunicator.at(context)));
        }

        @Override
        public void clearError() {
            cudaGetLastError();
        }
    }
}
