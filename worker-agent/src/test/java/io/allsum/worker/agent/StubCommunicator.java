package io.allsum.worker.agent;

import io.allsum.model.Backend;
import io.allsum.comm.CommException;
import io.allsum.comm.ForwardingCommunicator;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** A communicator that only records abort and close; the agent tests never run collectives on it. */
final class StubCommunicator extends ForwardingCommunicator {

    final AtomicInteger aborts = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    /** Who hears of failures found outside any call (the agent registers itself). */
    volatile Consumer<CommException> failureListener;

    StubCommunicator(int rank, int size) {
        super(ForwardingCommunicator.unsupported(rank, size, Backend.RING));
    }

    @Override
    public void abort() {
        aborts.incrementAndGet();
    }

    @Override
    public void close() {
        closes.incrementAndGet();
    }

    @Override
    public void onFailure(Consumer<CommException> listener) {
        this.failureListener = listener;
    }
}
