package io.allsum.server.rendezvous;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The rendezvous' one timer thread: join wait expiries and the sweep. Waiting joins are futures, never threads. */
@Component
class RendezvousScheduler implements DisposableBean {

    private final ScheduledThreadPoolExecutor executor;

    RendezvousScheduler() {
        executor = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "rendezvous-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        // Answered joins cancel their expiry; without this, 10,000 cancelled tasks would sit in the queue.
        executor.setRemoveOnCancelPolicy(true);
    }

    ScheduledFuture<?> schedule(Runnable task, Duration delay) {
        return executor.schedule(task, delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    ScheduledFuture<?> every(Runnable task, Duration interval) {
        return executor.scheduleWithFixedDelay(task, interval.toNanos(), interval.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void destroy() {
        executor.shutdownNow();
    }
}
