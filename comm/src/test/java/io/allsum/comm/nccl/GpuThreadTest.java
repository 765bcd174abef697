package io.allsum.comm.nccl;

import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a GPU call runs, without a GPU: per-thread contexts are faked (device d's context is 100 + d), so the test
 * sees which thread ran each call, which context it ran in, and what the caller's thread is left with.
 */
class GpuThreadTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final int DEVICE = 3;

    private final FakeContexts contexts = new FakeContexts();
    private final GpuThread gpu = new GpuThread("test-gpu", contexts);

    /** Per-thread current context, as the CUDA driver keeps it; counts the switches. */
    static final class FakeContexts implements GpuThread.DeviceContexts {
        final ThreadLocal<Long> current = ThreadLocal.withInitial(() -> 0L);
        final AtomicInteger setDevices = new AtomicInteger();
        final List<Long> restored = new ArrayList<>();
        final AtomicInteger clearedErrors = new AtomicInteger();

        @Override
        public long current() {
            return current.get();
        }

        @Override
        public void setDevice(int device) {
            setDevices.incrementAndGet();
            current.set(100L + device);
        }

        @Override
        public synchronized void setCurrent(long context) {
            restored.add(context);
            current.set(context);
        }

        @Override
        public void clearError() {
            clearedErrors.incrementAndGet();
        }
    }

    @AfterEach
    void close() {
        gpu.close();
    }

    private void useDevice() {
        gpu.run("init", 0, TIMEOUT, () -> {
            contexts.setDevice(DEVICE);
            gpu.useDevice(DEVICE);
        });
        contexts.setDevices.set(0);
    }

    private String threadOfCall() {
        return gpu.call("probe", 0, TIMEOUT, () -> Thread.currentThread().getName());
    }

    @Test
    void beforeACommunicatorExistsEveryCallRunsOnTheGpuThread() {
        assertThat(threadOfCall()).isEqualTo("test-gpu");
    }

    @Test
    void aPlatformThreadRunsItsCallsItselfInTheDeviceContextAndKeepsItWhenItHadNone() {
        useDevice();
        assertThat(threadOfCall()).isEqualTo(Thread.currentThread().getName());
        long inside = gpu.call("probe", 0, TIMEOUT, contexts::current);
        assertThat(inside).isEqualTo(100L + DEVICE);
        assertThat(contexts.setDevices).hasValue(1);
        assertThat(contexts.restored).isEmpty();
        assertThat(contexts.current()).isEqualTo(100L + DEVICE);
    }

    @Test
    void aThreadOnAnotherContextGetsItsOwnBackAfterEveryCall() {
        useDevice();
        contexts.current.set(555L);
        for (int i = 0; i < 2; i++) {
            assertThat(gpu.call("probe", 0, TIMEOUT, contexts::current)).isEqualTo(100L + DEVICE);
            assertThat(contexts.current()).isEqualTo(555L);
        }
        assertThat(contexts.setDevices).hasValue(2);
        assertThat(contexts.restored).containsExactly(555L, 555L);
    }

    @Test
    void aCallThatFailsOnTheCallersThreadClearsItsCudaErrorThereAndOnlyThen() {
        useDevice();
        threadOfCall();
        assertThat(contexts.clearedErrors).hasValue(0);
        assertThatThrownBy(() -> gpu.run("allocate", 0, TIMEOUT, () -> {
            throw new OutOfMemoryError("cudaMalloc");
        })).isInstanceOf(OutOfMemoryError.class);
        assertThat(contexts.clearedErrors).hasValue(1);
    }

    @Test
    void virtualThreadsAndNestedCallsStayOnTheGpuThread() throws Exception {
        useDevice();
        AtomicReference<String> ran = new AtomicReference<>();
        Thread.ofVirtual().start(() -> ran.set(threadOfCall())).join();
        assertThat(ran.get()).isEqualTo("test-gpu");
        String nested = gpu.call("outer", 0, TIMEOUT, () -> {
            assertThat(gpu.isCurrent()).isTrue();
            return threadOfCall();
        });
        assertThat(nested).isEqualTo(Thread.currentThread().getName());
        assertThat(gpu.isCurrent()).isFalse();
    }

    @Test
    void aCallThatFindsTheGpuBusyWaitsOnTheGpuThreadAndNeverOverlaps() throws Exception {
        useDevice();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger inside = new AtomicInteger();
        AtomicBoolean overlapped = new AtomicBoolean();
        Thread holder = Thread.ofPlatform().start(() -> gpu.run("hold", 0, TIMEOUT, () -> {
            inside.incrementAndGet();
            holding.countDown();
            await(release);
            inside.decrementAndGet();
        }));
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicReference<String> ran = new AtomicReference<>();
        Thread waiter = Thread.ofPlatform().start(() -> ran.set(gpu.call("wait", 0, TIMEOUT, () -> {
            overlapped.set(inside.get() != 0);
            return Thread.currentThread().getName();
        })));
        Thread.sleep(100);
        assertThat(ran.get()).isNull();
        release.countDown();
        holder.join(10_000);
        waiter.join(10_000);
        assertThat(ran.get()).isEqualTo("test-gpu");
        assertThat(overlapped).isFalse();
    }

    @Test
    void aCallerThatGivesUpOnABusyGpuGetsATimeoutAndItsCallNeverRuns() throws Exception {
        useDevice();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().start(() -> gpu.run("hold", 0, TIMEOUT, () -> {
            holding.countDown();
            await(release);
        }));
        assertThat(holding.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean ran = new AtomicBoolean();
        assertThatThrownBy(() -> gpu.run("all_reduce", 2, Duration.ofMillis(200), () -> ran.set(true)))
                .isInstanceOf(CommTimeoutException.class)
                .hasMessageContaining("all_reduce").hasMessageContaining("rank 2");
        release.countDown();
        holder.join(10_000);
        assertThat(threadOfCall()).isEqualTo(Thread.currentThread().getName());
        assertThat(ran).isFalse();
    }

    @Test
    void afterCloseACallFailsNamingThePhase() {
        useDevice();
        gpu.close();
        assertThatThrownBy(this::threadOfCall).isInstanceOf(CommException.class)
                .hasMessageContaining("probe").hasMessageContaining("shut down");
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
