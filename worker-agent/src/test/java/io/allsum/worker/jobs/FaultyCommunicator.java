package io.allsum.worker.jobs;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.ForwardingCommunicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Wraps a communicator and, after every collective, corrupts the first {@code corrupted} elements of this rank's
 * output by flipping the second-highest bit of each: a change far beyond any tolerance in every dtype (for floats
 * the top exponent bit). Control calls ({@code maxOverRanks}) pass through the delegate's own collectives, never
 * corrupted.
 */
class FaultyCommunicator extends ForwardingCommunicator {

    private final int corrupted;

    FaultyCommunicator(Communicator delegate, int corrupted) {
        super(delegate);
        this.corrupted = corrupted;
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        super.allReduce(send, recv, count, type, op);
        corrupt(recv, 0, count, type);
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        super.allGather(send, recv, sendCount, type);
        corrupt(recv, 0, sendCount * size(), type);
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        super.reduceScatter(send, recv, recvCount, type, op);
        corrupt(recv, send == recv ? rank() * recvCount : 0, recvCount, type);
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        super.broadcast(send, recv, count, type, root);
        corrupt(recv, 0, count, type);
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        super.reduce(send, recv, count, type, op, root);
        if (rank() == root) {
            corrupt(recv, 0, count, type);
        }
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        super.recv(buffer, count, type, peer);
        corrupt(buffer, 0, count, type);
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        super.sendRecv(send, sendPeer, recv, recvPeer, count, type);
        corrupt(recv, 0, count, type);
    }

    private void corrupt(CommBuffer buffer, long firstElement, long elements, DataType type) {
        int width = type.bytes();
        ByteBuffer element = ByteBuffer.allocate(width).order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < Math.min(corrupted, elements); i++) {
            long offset = (firstElement + i) * width;
            buffer.copyToHost(element.clear(), offset);
            long bits = DTypeCodec.readBits(element, 0, width);
            DTypeCodec.writeBits(element, 0, width, bits ^ (1L << (8 * width - 2)));
            buffer.copyFromHost(element.clear(), offset);
        }
    }
}
