package io.allsum.comm;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;

import java.lang.reflect.Proxy;
import java.util.function.Consumer;

/** Passes every call, the interface's defaults included, to another communicator; a double overrides what it changes. */
public abstract class ForwardingCommunicator implements Communicator {

    private final Communicator delegate;

    protected ForwardingCommunicator(Communicator delegate) {
        this.delegate = delegate;
    }

    /**
     * A communicator that answers {@code rank}, {@code size} and {@code backend} and throws
     * UnsupportedOperationException on every other call: for doubles that never run collectives.
     */
    public static Communicator unsupported(int rank, int size, Backend backend) {
        return (Communicator) Proxy.newProxyInstance(Communicator.class.getClassLoader(),
                new Class<?>[] {Communicator.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "rank" -> rank;
                    case "size" -> size;
                    case "backend" -> backend;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Override
    public int rank() {
        return delegate.rank();
    }

    @Override
    public int size() {
        return delegate.size();
    }

    @Override
    public Backend backend() {
        return delegate.backend();
    }

    @Override
    public CommBuffer allocate(long bytes) {
        return delegate.allocate(bytes);
    }

    @Override
    public long allocatableBytes() {
        return delegate.allocatableBytes();
    }

    @Override
    public long workspaceBytes(CollectiveOp op, CollectiveOp.Shape shape) {
        return delegate.workspaceBytes(op, shape);
    }

    @Override
    public int maxOverRanks(int value) {
        return delegate.maxOverRanks(value);
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        delegate.allReduce(send, recv, count, type, op);
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        delegate.allGather(send, recv, sendCount, type);
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        delegate.reduceScatter(send, recv, recvCount, type, op);
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        delegate.broadcast(send, recv, count, type, root);
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        delegate.reduce(send, recv, count, type, op, root);
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        delegate.send(buffer, count, type, peer);
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        delegate.recv(buffer, count, type, peer);
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        delegate.sendRecv(send, sendPeer, recv, recvPeer, count, type);
    }

    @Override
    public void barrier() {
        delegate.barrier();
    }

    @Override
    public Communicator split(int color, int key) {
        return delegate.split(color, key);
    }

    @Override
    public long timeNanos(Runnable body) {
        return delegate.timeNanos(body);
    }

    @Override
    public java.util.Map<Integer, io.allsum.comm.TcpCounts> tcpCounters() {
        return delegate.tcpCounters();
    }

    @Override
    public void onFailure(Consumer<CommException> listener) {
        delegate.onFailure(listener);
    }

    @Override
    public void abort() {
        delegate.abort();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
