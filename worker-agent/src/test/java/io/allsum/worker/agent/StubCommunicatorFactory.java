package io.allsum.worker.agent;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Hands out {@link StubCommunicator}s and remembers them, one per generation. */
final class StubCommunicatorFactory implements CommunicatorFactory {

    final List<StubCommunicator> created = new CopyOnWriteArrayList<>();
    final List<Long> generations = new CopyOnWriteArrayList<>();
    private final Backend backend;
    private final boolean available;

    StubCommunicatorFactory(Backend backend, boolean available) {
        this.backend = backend;
        this.available = available;
    }

    @Override
    public Backend backend() {
        return backend;
    }

    @Override
    public boolean isAvailable() {
        return available;
    }

    @Override
    public String unavailableReason() {
        return available ? "" : "libnccl.so.2 not found";
    }

    @Override
    public JoinContribution prepareJoin(int rank) {
        return new JoinContribution(null, "127.0.0.1:" + (40000 + rank), null);
    }

    @Override
    public Communicator create(GroupView view, int rank, Duration deadline) {
        StubCommunicator communicator = new StubCommunicator(rank, view.worldSize());
        created.add(communicator);
        generations.add(view.generation());
        return communicator;
    }
}
