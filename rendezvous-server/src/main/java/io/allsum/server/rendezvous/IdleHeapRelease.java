package io.allsum.server.rendezvous;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * Gives back the heap a burst of waiting joins took, on a collector that does not do it by itself. G1, the default,
 * runs a full collection when idle (packaging/jvm/server.jvmargs); the serial and parallel collectors (the
 * low-memory profile uses the serial one) never collect while nothing allocates, so after 16,384 waiting joins the
 * server would keep its peak heap for good. Once a burst of at least {@link #BURST_JOINS} waiting joins is over and
 * no join has waited for {@link #QUIET}, one full collection ({@code System.gc()}) lets the heap shrink, down to
 * {@code -XX:MinHeapSize}.
 */
@Component
class IdleHeapRelease implements SmartLifecycle {

    static final int BURST_JOINS = 1024;
    static final Duration QUIET = Duration.ofSeconds(15);
    private static final Duration CHECK = Duration.ofSeconds(5);
    private static final Logger log = LoggerFactory.getLogger(IdleHeapRelease.class);

    private final RendezvousRegistry registry;
    private final RendezvousScheduler scheduler;
    private final Tracker tracker = new Tracker(BURST_JOINS, QUIET);
    private volatile ScheduledFuture<?> checking;

    IdleHeapRelease(RendezvousRegistry registry, RendezvousScheduler scheduler) {
        this.registry = registry;
        this.scheduler = scheduler;
    }

    /** Whether this JVM's collector keeps its heap while idle: the serial and parallel ones. */
    static boolean collectorKeepsHeapWhileIdle(List<String> collectorNames) {
        return collectorNames.stream().anyMatch(name -> name.equals("MarkSweepCompact") || name.equals("PS MarkSweep"));
    }

    @Override
    public void start() {
        List<String> collectors = ManagementFactory.getGarbageCollectorMXBeans().stream()
                .map(GarbageCollectorMXBean::getName).toList();
        if (!collectorKeepsHeapWhileIdle(collectors)) {
            return;
        }
        log.info("collector {} keeps its heap while idle: after a burst of {} or more waiting joins, {} quiet "
                + "starts one full collection", collectors, BURST_JOINS, QUIET);
        checking = scheduler.every(this::check, CHECK);
    }

    private void check() {
        if (tracker.shouldCollect(registry.takeWaitingPeak(), registry.waitingJoins(), System.nanoTime())) {
            long start = System.nanoTime();
            System.gc();
            log.info("burst over and {} quiet: full collection in {} ms, heap committed now {} MB", QUIET,
                    (System.nanoTime() - start) / 1_000_000, Runtime.getRuntime().totalMemory() >> 20);
        }
    }

    @Override
    public void stop() {
        ScheduledFuture<?> running = checking;
        if (running != null) {
            running.cancel(false);
        }
        checking = null;
    }

    @Override
    public boolean isRunning() {
        return checking != null;
    }

    /** The decision alone, fed what the registry says at each check. Used by one thread. */
    static final class Tracker {
        private final int burstJoins;
        private final long quietNanos;
        private boolean burst;
        private long lastActive;

        Tracker(int burstJoins, Duration quiet) {
            this.burstJoins = burstJoins;
            this.quietNanos = quiet.toNanos();
        }

        /**
         * @param peak    the most joins that waited at once since the previous check
         * @param waiting the joins waiting now
         * @return whether to collect now: once per burst, when no join has waited for the quiet time since
         */
        boolean shouldCollect(int peak, int waiting, long nowNanos) {
            burst |= peak >= burstJoins;
            if (!burst) {
                return false;
            }
            if (waiting > 0 || peak > 0) {
                lastActive = nowNanos; // joins waited since the previous check: the quiet time starts over
                return false;
            }
            if (nowNanos - lastActive < quietNanos) {
                return false;
            }
            burst = false;
            return true;
        }
    }
}
