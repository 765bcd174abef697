package io.allsum.server.rendezvous;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

import java.util.concurrent.ScheduledFuture;

/** Sweeps every group at a fixed delay: join deadlines, heartbeat timeouts, idle eviction. */
@Component
class RendezvousSweeper implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(RendezvousSweeper.class);

    private final RendezvousRegistry registry;
    private final RendezvousScheduler scheduler;
    private final RendezvousProperties properties;
    private volatile ScheduledFuture<?> sweeping;

    RendezvousSweeper(RendezvousRegistry registry, RendezvousScheduler scheduler, RendezvousProperties properties) {
        this.registry = registry;
        this.scheduler = scheduler;
        this.properties = properties;
    }

    @Override
    public void start() {
        sweeping = scheduler.every(this::sweepSafely, properties.effectiveSweepInterval());
    }

    private void sweepSafely() {
        try {
            registry.sweep();
        } catch (RuntimeException e) {
            log.error("rendezvous sweep failed; retrying at the next interval", e);
        }
    }

    /** Pauses the sweep; {@link #start()} resumes it (Spring may stop and restart a context). */
    @Override
    public void stop() {
        ScheduledFuture<?> running = sweeping;
        if (running != null) {
            running.cancel(false);
        }
        sweeping = null;
    }

    @Override
    public boolean isRunning() {
        return sweeping != null;
    }
}
