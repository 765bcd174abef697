package io.allsum.worker.jobs;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * The validation's lock-step barriers: every rank calls {@link #agree} at the same points, and each call's wait is
 * kept. The rank the others wait for waits least, which is how a rank that stalls is found
 * ({@link io.allsum.model.validate.Stragglers}). One buffer for all calls: a barrier allocates nothing.
 */
final class Lockstep implements AutoCloseable {

    private final Communicator comm;
    private final CommBuffer flag;
    private final ByteBuffer host = ByteBuffer.allocateDirect(Integer.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final List<Double> waitsMicros = new ArrayList<>();
    private long first = -1;
    private long last;

    Lockstep(Communicator comm) {
        this.comm = comm;
        this.flag = comm.allocate(Integer.BYTES);
    }

    /** A barrier that also agrees: the largest {@code value} over ranks. Its wait is recorded. */
    int agree(int value) {
        long start = System.nanoTime();
        if (first < 0) {
            first = start;
        }
        host.putInt(0, value);
        flag.copyFromHost(host, 0);
        comm.allReduce(flag, flag, 1, DataType.INT32, ReduceOp.MAX);
        flag.copyToHost(host, 0);
        last = System.nanoTime();
        waitsMicros.add((last - start) / 1000.0);
        return host.getInt(0);
    }

    void barrier() {
        agree(0);
    }

    List<Double> waitsMicros() {
        return List.copyOf(waitsMicros);
    }

    /** Wall time from the first barrier's start to the last one's end. */
    double seconds() {
        return first < 0 ? 0 : (last - first) / 1e9;
    }

    @Override
    public void close() {
        flag.close();
    }
}
