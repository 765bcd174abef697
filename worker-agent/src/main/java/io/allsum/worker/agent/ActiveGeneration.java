package io.allsum.worker.agent;

import io.allsum.model.rendezvous.GroupView;
import io.allsum.comm.Communicator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One completed generation this worker belongs to, with its communicator. Any thread (heartbeats, shutdown, the
 * agent) may declare it broken; the first to do so aborts the communicator, which fails a collective in flight.
 */
final class ActiveGeneration {

    private static final Logger log = LoggerFactory.getLogger(ActiveGeneration.class);

    private final GroupView view;
    private final Communicator communicator;
    private final AtomicReference<String> brokenReason = new AtomicReference<>();
    private final AtomicBoolean closed = new AtomicBoolean();

    ActiveGeneration(GroupView view, Communicator communicator) {
        this.view = view;
        this.communicator = communicator;
    }

    GroupView view() {
        return view;
    }

    long number() {
        return view.generation();
    }

    Communicator communicator() {
        return communicator;
    }

    boolean isBroken() {
        return brokenReason.get() != null;
    }

    String brokenReason() {
        return brokenReason.get();
    }

    /** Returns true when this call broke it (later calls keep the first reason). */
    boolean markBroken(String reason) {
        if (!brokenReason.compareAndSet(null, reason)) {
            return false;
        }
        try {
            communicator.abort();
        } catch (RuntimeException e) {
            log.warn("Aborting the communicator of generation {} failed: {}", number(), e.toString());
        }
        return true;
    }

    /** Idempotent. */
    void close() {
        if (closed.compareAndSet(false, true)) {
            try {
                communicator.close();
            } catch (RuntimeException e) {
                log.warn("Closing the communicator of generation {} failed: {}", number(), e.toString());
            }
        }
    }
}
