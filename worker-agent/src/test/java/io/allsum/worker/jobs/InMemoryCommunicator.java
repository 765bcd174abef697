package io.allsum.worker.jobs;

import io.allsum.model.Backend;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import io.allsum.comm.Communicator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A reference communicator for tests: N ranks in one JVM (one thread each) meeting at a CyclicBarrier over shared
 * host arrays. Semantics are the plain definitions: each rank posts its input, all read, then each writes its own
 * output; point-to-point goes through per-pair mailboxes. Reductions decode every element, combine in long or double
 * arithmetic and encode the result (integers wrap at the type's width; integer AVG truncates toward zero).
 * <p>
 * With {@code premultiplyAverage} a floating-point AVG is computed the way NCCL does it instead: every input is
 * multiplied by 1/n rounded to the type (to half for float8) and the products are summed left to right, rounding
 * to the type after every step.
 */
record InMemoryCommunicator(World world, int rank) implements Communicator {

    /** The state every rank of one in-memory group shares. */
    static final class World {
        final int size;
        final boolean premultiplyAverage;
        final CyclicBarrier barrier;
        final Posted[] posted;
        final LinkedBlockingQueue<byte[]>[][] mailboxes;
        final List<Long> allocations = new CopyOnWriteArrayList<>();
        /** What each rank's {@link #allocatableBytes} answers, by rank; unlimited when absent. */
        final java.util.Map<Integer, Long> allocatable = new java.util.concurrent.ConcurrentHashMap<>();
        final AtomicInteger openBuffers = new AtomicInteger();
        /** Each rank's (color, key) of the split under way. */
        final int[][] splitPosts;
        /** The groups split off this one, by split number and color: every member joins the same world. */
        final java.util.Map<String, World> splits = new java.util.concurrent.ConcurrentHashMap<>();
        /** How many splits each rank has made: the same on every rank, so it numbers a split. */
        final int[] splitsMade;
        /** Sub-communicators closed, over all splits. */
        final AtomicInteger closedSplits = new AtomicInteger();
        private final World parent;

        @SuppressWarnings("unchecked")
        World(int size, boolean premultiplyAverage) {
            this(size, premultiplyAverage, null);
        }

        private World(int size, boolean premultiplyAverage, World parent) {
            this.parent = parent;
            this.splitPosts = new int[size][];
            this.splitsMade = new int[size];
            this.size = size;
            this.premultiplyAverage = premultiplyAverage;
            this.barrier = new CyclicBarrier(size);
            this.posted = new Posted[size];
            this.mailboxes = new LinkedBlockingQueue[size][size];
            for (int from = 0; from < size; from++) {
                for (int to = 0; to < size; to++) {
                    mailboxes[from][to] = new LinkedBlockingQueue<>();
                }
            }
        }

        InMemoryCommunicator communicator(int rank) {
            return new InMemoryCommunicator(this, rank);
        }
    }

    /** What a rank put up for the others to read in the current collective. */
    record Posted(HostBuffer buffer, boolean inPlace) {
    }

    /** Host memory standing in for device memory. */
    static final class HostBuffer implements CommBuffer {
        final byte[] data;
        final ByteBuffer view;
        private final World world;
        private boolean closed;

        HostBuffer(World world, long bytes) {
            this.world = world;
            this.data = new byte[Math.toIntExact(bytes)];
            this.view = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
        }

        @Override
        public long byteSize() {
            return data.length;
        }

        @Override
        public void copyFromHost(ByteBuffer src, long offsetBytes) {
            checkRange(offsetBytes, src.remaining());
            src.duplicate().get(data, (int) offsetBytes, src.remaining());
        }

        @Override
        public void copyToHost(ByteBuffer dst, long offsetBytes) {
            checkRange(offsetBytes, dst.remaining());
            dst.duplicate().put(data, (int) offsetBytes, dst.remaining());
        }

        private void checkRange(long offset, int length) {
            if (closed) {
                throw new IllegalStateException("buffer used after close");
            }
            if (offset < 0 || offset + length > data.length) {
                throw new IndexOutOfBoundsException("bytes " + offset + ".." + (offset + length)
                        + " outside a buffer of " + data.length);
            }
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                world.openBuffers.decrementAndGet();
            }
        }
    }

    private static final long DEADLINE_SECONDS = 20;

    @Override
    public int size() {
        return world.size;
    }

    @Override
    public Backend backend() {
        return Backend.RING;
    }

    @Override
    public long allocatableBytes() {
        return world.allocatable.getOrDefault(rank(), Long.MAX_VALUE);
    }

    @Override
    public CommBuffer allocate(long bytes) {
        world.allocations.add(bytes);
        world.openBuffers.incrementAndGet();
        return new HostBuffer(world, bytes);
    }

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        exchange("all_reduce", send, recv, () -> reduceBlock(type, op, count, 0),
                output -> write(recv, 0, output));
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        int width = type.bytes();
        exchange("all_gather", send, recv, () -> {
            byte[] out = new byte[Math.toIntExact(sendCount * width * world.size)];
            for (int q = 0; q < world.size; q++) {
                Posted p = world.posted[q];
                long from = p.inPlace() ? q * sendCount * width : 0;
                System.arraycopy(p.buffer().data, (int) from, out, (int) (q * sendCount * width),
                        (int) (sendCount * width));
            }
            return out;
        }, output -> write(recv, 0, output));
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        boolean inPlace = send == recv;
        exchange("reduce_scatter", send, recv, () -> reduceBlock(type, op, recvCount, rank * recvCount),
                output -> write(recv, inPlace ? rank * recvCount * type.bytes() : 0, output));
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        exchange("broadcast", send, recv, () -> {
            byte[] out = new byte[Math.toIntExact(count * type.bytes())];
            System.arraycopy(world.posted[root].buffer().data, 0, out, 0, out.length);
            return out;
        }, output -> write(recv, 0, output));
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        exchange("reduce", send, recv, () -> rank == root ? reduceBlock(type, op, count, 0) : null,
                output -> {
                    if (output != null) {
                        write(recv, 0, output);
                    }
                });
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        byte[] copy = new byte[Math.toIntExact(count * type.bytes())];
        System.arraycopy(((HostBuffer) buffer).data, 0, copy, 0, copy.length);
        world.mailboxes[rank][peer].add(copy);
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        try {
            byte[] message = world.mailboxes[peer][rank].poll(DEADLINE_SECONDS, TimeUnit.SECONDS);
            if (message == null) {
                throw new CommTimeoutException("recv", rank, "nothing from peer " + peer);
            }
            if (message.length != count * type.bytes()) {
                throw new CommException("recv", rank, "peer " + peer + " sent " + message.length + " bytes");
            }
            write(buffer, 0, message);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("recv", rank, "interrupted", e);
        }
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        send(send, count, type, sendPeer);
        recv(recv, count, type, recvPeer);
    }

    @Override
    public void barrier() {
        await("barrier");
    }

    @Override
    public Communicator split(int color, int key) {
        world.splitPosts[rank] = new int[]{color, key};
        await("split");
        List<Integer> members = java.util.stream.IntStream.range(0, world.size)
                .filter(r -> world.splitPosts[r][0] == color).boxed()
                .sorted(java.util.Comparator.<Integer>comparingInt(r -> world.splitPosts[r][1]).thenComparingInt(r -> r))
                .toList();
        int number = world.splitsMade[rank]++;
        await("split"); // every rank has read the posts before a next split overwrites them
        if (color < 0) {
            return null;
        }
        World sub = world.splits.computeIfAbsent(number + ":" + color,
                k -> new World(members.size(), world.premultiplyAverage, world));
        return sub.communicator(members.indexOf(rank));
    }

    @Override
    public long timeNanos(Runnable body) {
        long start = System.nanoTime();
        body.run();
        return System.nanoTime() - start;
    }

    @Override
    public void abort() {
        world.barrier.reset();
    }

    @Override
    public void close() {
        if (world.parent != null) {
            world.parent.closedSplits.incrementAndGet();
        }
    }

    private interface Compute {
        byte[] result();
    }

    private interface Store {
        void store(byte[] output);
    }

    /** Post, let every rank compute from every input, then write outputs only once all have read. */
    private void exchange(String phase, CommBuffer send, CommBuffer recv, Compute compute, Store store) {
        world.posted[rank] = new Posted((HostBuffer) send, send == recv);
        await(phase);
        byte[] output = compute.result();
        await(phase);
        store.store(output);
        await(phase);
    }

    private void await(String phase) {
        try {
            world.barrier.await(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new CommTimeoutException(phase, rank, "the other ranks did not arrive within "
                    + DEADLINE_SECONDS + " s");
        } catch (BrokenBarrierException e) {
            throw new CommException(phase, rank, "another rank failed or aborted", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException(phase, rank, "interrupted", e);
        }
    }

    private static void write(CommBuffer buffer, long offsetBytes, byte[] bytes) {
        buffer.copyFromHost(ByteBuffer.wrap(bytes), offsetBytes);
    }

    /** Elements firstElement .. firstElement+count of every rank's posted input, reduced. */
    private byte[] reduceBlock(DataType type, ReduceOp op, long count, long firstElement) {
        int width = type.bytes();
        byte[] out = new byte[Math.toIntExact(count * width)];
        ByteBuffer outView = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < count; i++) {
            int at = (int) ((firstElement + i) * width);
            long bits = type.isFloatingPoint() ? reduceFloat(type, op, at) : reduceInteger(type, op, at);
            DTypeCodec.writeBits(outView, i * width, width, bits);
        }
        return out;
    }

    private long reduceInteger(DataType type, ReduceOp op, int at) {
        boolean unsigned = !DTypeCodec.isSigned(type);
        long acc = 0;
        for (int q = 0; q < world.size; q++) {
            long v = DTypeCodec.decodeInteger(type, DTypeCodec.readBits(world.posted[q].buffer().view, at, type.bytes()));
            if (q == 0) {
                acc = v;
                continue;
            }
            acc = switch (op) {
                case SUM, AVG -> acc + v;
                case PROD -> acc * v;
                case MAX -> (unsigned ? Long.compareUnsigned(v, acc) : Long.compare(v, acc)) > 0 ? v : acc;
                case MIN -> (unsigned ? Long.compareUnsigned(v, acc) : Long.compare(v, acc)) < 0 ? v : acc;
            };
            acc = DTypeCodec.decodeInteger(type, DTypeCodec.encodeInteger(type, acc));
        }
        if (op == ReduceOp.AVG) {
            acc = unsigned ? Long.divideUnsigned(acc & DTypeCodec.mask(type), world.size) : acc / world.size;
        }
        return DTypeCodec.encodeInteger(type, acc);
    }

    private long reduceFloat(DataType type, ReduceOp op, int at) {
        if (op == ReduceOp.AVG && world.premultiplyAverage) {
            return premultipliedAverage(type, at);
        }
        double acc = 0;
        for (int q = 0; q < world.size; q++) {
            double v = DTypeCodec.decodeFloat(type, DTypeCodec.readBits(world.posted[q].buffer().view, at, type.bytes()));
            acc = q == 0 ? v : op.combine(acc, v);
        }
        if (op == ReduceOp.AVG) {
            acc /= world.size;
        }
        return DTypeCodec.encodeFloat(type, acc);
    }

    private long premultipliedAverage(DataType type, int at) {
        DataType scalarType = type == DataType.FLOAT8_E4M3 || type == DataType.FLOAT8_E5M2 ? DataType.FLOAT16 : type;
        double scale = round(scalarType, 1.0 / world.size);
        double acc = 0;
        for (int q = 0; q < world.size; q++) {
            double v = DTypeCodec.decodeFloat(type, DTypeCodec.readBits(world.posted[q].buffer().view, at, type.bytes()));
            acc = round(type, acc + round(type, v * scale));
        }
        return DTypeCodec.encodeFloat(type, acc);
    }

    private static double round(DataType type, double value) {
        return DTypeCodec.decodeFloat(type, DTypeCodec.encodeFloat(type, value));
    }
}
