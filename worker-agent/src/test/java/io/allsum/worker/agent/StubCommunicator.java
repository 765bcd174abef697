package io.allsum.worker.agent;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.worker.comm.CommBuffer;
import io.allsum.worker.comm.CommException;
import io.allsum.worker.comm.Communicator;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/** A communicator that only records abort and close; the agent tests never run collectives on it. */
final class StubCommunicator implements Communicator {

    final AtomicInteger aborts = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    /** Who hears of failures found outside any call (the agent registers itself). */
    volatile Consumer<CommException> failureListener;
    private final int rank;
    private final int size;

    StubCommunicator(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Backend backend() {
        return Backend.RING;
    }

    @Override
    public CommBuffer allocate(long bytes) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public long allocatableBytes() {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void barrier() {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public Communicator split(int color, int key) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public long timeNanos(Runnable body) {
        throw new UnsupportedOperationException("stub");
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
