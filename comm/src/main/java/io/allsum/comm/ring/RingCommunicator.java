package io.allsum.comm.ring;

import io.allsum.model.Backend;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import io.allsum.comm.Communicator;
import io.allsum.comm.PeerFailedException;
import io.allsum.comm.host.HostReduction;
import io.allsum.comm.TcpCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The CPU ring communicator: a full mesh of TCP links among the ranks of one generation (or split), with
 * bandwidth-optimal pipelined ring algorithms for the collectives.
 *
 * <p>All-reduce is a reduce-scatter followed by an all-gather around the ring; every segment travels in chunks,
 * and a link's writer thread forwards a chunk as soon as the calling thread has received (and reduced) it, so that
 * sending, receiving and reducing overlap. Small all-reduces instead send the whole buffer to every peer and reduce
 * in rank order: one step instead of 2(n-1). Broadcast and reduce are pipelined chains from/to the root.
 *
 * <p>Between collectives the links are watched ({@link #checkIdleLinks}): a peer that dies while the group is idle
 * closes its sockets, and its neighbours learn it within one check instead of at the next collective.
 */
public final class RingCommunicator implements Communicator {

    /** How long {@link #abort} lets queued ABORT notices go out, all links together (each is 16 bytes). */
    static final long ABORT_NOTICE_GRACE_MILLIS = 200;

    private final int rank;
    private final int size;
    private final PeerLink[] links;
    private final RingSettings settings;
    private final RingListener listener;
    private final RingKey key;
    private final String group;
    private final long generation;
    private final String tag;
    private final List<String> endpoints;
    private final Arena scratchArena = Arena.ofShared();
    private final MemorySegment staging;
    private final MemorySegment barrierToken;
    private MemorySegment scratch = MemorySegment.NULL;
    private int splits;
    private volatile CommException broken;
    private volatile boolean closed;
    /** Held by a collective in flight and by an idle check: the two never read the links at the same time. */
    private final ReentrantLock linkReads = new ReentrantLock();
    private volatile Consumer<CommException> failureListener;

    RingCommunicator(int rank, PeerLink[] links, RingSettings settings, RingListener listener, RingKey key,
                     String group, long generation, String tag, List<String> endpoints) {
        this.rank = rank;
        this.size = links.length;
        this.links = links;
        this.settings = settings;
        this.listener = listener;
        this.key = key;
        this.group = group;
        this.generation = generation;
        this.tag = tag;
        this.endpoints = List.copyOf(endpoints);
        this.staging = scratchArena.allocate(settings.chunkBytes(), 64);
        this.barrierToken = scratchArena.allocate(1);
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

    /** The endpoints of this communicator's members, by rank. */
    public List<String> endpoints() {
        return endpoints;
    }

    @Override
    public CommBuffer allocate(long bytes) {
        return new RingBuffer(bytes);
    }

    @Override
    public long allocatableBytes() {
        return HostMemory.availableBytes();
    }

    /** The scratch that reduce-scatter, reduce off the root and small all-reduces take; it grows by doubling. */
    @Override
    public long workspaceBytes(CollectiveOp op, CollectiveOp.Shape shape) {
        long bytes = switch (op) {
            case REDUCE_SCATTER, REDUCE -> shape.bytes();
            case ALL_REDUCE -> shape.bytes() <= settings.smallMessageBytes() ? shape.bytes() * (size + 1) : 0;
            case ALL_GATHER, BROADCAST, SEND_RECV -> 0;
        };
        return 2 * bytes;
    }

    // ---------------------------------------------------------------- collectives

    @Override
    public void allReduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op) {
        run(RingOp.ALL_REDUCE, ctx -> {
            MemorySegment src = segment(ctx, send, count, type, "send");
            MemorySegment dst = segment(ctx, recv, count, type, "recv");
            long bytes = count * type.bytes();
            if (count == 0) {
                return;
            }
            if (size == 1) {
                copy(src, dst);
                return;
            }
            if (bytes <= settings.smallMessageBytes()) {
                allReduceDirect(ctx, src, dst, count, type, op);
            } else {
                allReduceRing(ctx, src, dst, count, type, op);
            }
        });
    }

    @Override
    public void allGather(CommBuffer send, CommBuffer recv, long sendCount, DataType type) {
        run(RingOp.ALL_GATHER, ctx -> {
            MemorySegment dst = segment(ctx, recv, sendCount * size, type, "recv");
            long blockBytes = sendCount * type.bytes();
            // In place (as in NCCL), this rank's input already sits in its own block of the output.
            MemorySegment src = send == recv
                    ? dst.asSlice(rank * blockBytes, blockBytes)
                    : segment(ctx, send, sendCount, type, "send");
            allGatherRing(ctx, src, dst, blockBytes);
        });
    }

    @Override
    public void reduceScatter(CommBuffer send, CommBuffer recv, long recvCount, DataType type, ReduceOp op) {
        run(RingOp.REDUCE_SCATTER, ctx -> {
            MemorySegment src = segment(ctx, send, recvCount * size, type, "send");
            long blockBytes = recvCount * type.bytes();
            // In place (as in NCCL), the result lands in this rank's own block of the input.
            MemorySegment dst = send == recv
                    ? src.asSlice(rank * blockBytes, blockBytes)
                    : segment(ctx, recv, recvCount, type, "recv");
            if (recvCount == 0) {
                return;
            }
            if (size == 1) {
                copy(src.asSlice(0, blockBytes), dst);
                return;
            }
            MemorySegment partials = scratch(blockBytes * size);
            List<MemorySegment> first = chunks(block(src, rank - 1, blockBytes), type);
            List<RecvChunk> recvs = new ArrayList<>();
            for (int step = 0; step < size - 1; step++) {
                int b = Math.floorMod(rank - 2 - step, size);
                boolean last = step == size - 2;
                MemorySegment target = last ? dst.asSlice(0, blockBytes) : block(partials, b, blockBytes);
                addReduceChunks(recvs, target, block(src, b, blockBytes), type, op, last && op == ReduceOp.AVG);
            }
            int lastBlockChunks = chunkCount(blockBytes, type);
            ringPass(ctx, first, recvs, recvs.size() - lastBlockChunks, type, op);
        });
    }

    @Override
    public void broadcast(CommBuffer send, CommBuffer recv, long count, DataType type, int root) {
        run(RingOp.BROADCAST, ctx -> {
            checkRank(ctx, root, "root");
            MemorySegment dst = segment(ctx, recv, count, type, "recv");
            MemorySegment src = rank == root ? segment(ctx, send, count, type, "send") : null;
            if (count == 0) {
                return;
            }
            if (rank == root) {
                copy(src, dst);
            }
            if (size == 1) {
                return;
            }
            int position = Math.floorMod(rank - root, size);
            List<MemorySegment> first = rank == root ? chunks(dst, type) : List.of();
            List<RecvChunk> recvs = new ArrayList<>();
            if (rank != root) {
                for (MemorySegment c : chunks(dst, type)) {
                    recvs.add(new RecvChunk(c, null, false));
                }
            }
            boolean lastInChain = position == size - 1;
            ringPass(ctx, first, recvs, lastInChain ? 0 : recvs.size(), type, ReduceOp.SUM, !lastInChain, rank != root);
        });
    }

    @Override
    public void reduce(CommBuffer send, CommBuffer recv, long count, DataType type, ReduceOp op, int root) {
        run(RingOp.REDUCE, ctx -> {
            checkRank(ctx, root, "root");
            MemorySegment src = segment(ctx, send, count, type, "send");
            MemorySegment dst = rank == root ? segment(ctx, recv, count, type, "recv") : null;
            if (count == 0) {
                return;
            }
            if (size == 1) {
                copy(src, dst);
                return;
            }
            // chain root+1 -> root+2 -> ... -> root, each adding its own contribution
            int position = Math.floorMod(rank - root - 1, size);
            boolean atRoot = rank == root;
            List<MemorySegment> first = position == 0 ? chunks(src, type) : List.of();
            List<RecvChunk> recvs = new ArrayList<>();
            if (position > 0) {
                MemorySegment target = atRoot ? dst : scratch(count * type.bytes());
                addReduceChunks(recvs, target, src, type, op, atRoot && op == ReduceOp.AVG);
            }
            ringPass(ctx, first, recvs, atRoot ? 0 : recvs.size(), type, op, !atRoot, position > 0);
        });
    }

    @Override
    public void send(CommBuffer buffer, long count, DataType type, int peer) {
        run(RingOp.POINT_TO_POINT, ctx -> {
            checkPeer(ctx, peer);
            MemorySegment src = segment(ctx, buffer, count, type, "send");
            PeerLink link = links[peer];
            long sequence = link.nextSendSequence();
            if (count > 0) {
                await(ctx, link.submit(ctx, () -> writeChunks(ctx, link, sequence, chunks(src, type))), link);
            }
        });
    }

    @Override
    public void recv(CommBuffer buffer, long count, DataType type, int peer) {
        run(RingOp.POINT_TO_POINT, ctx -> {
            checkPeer(ctx, peer);
            MemorySegment dst = segment(ctx, buffer, count, type, "recv");
            PeerLink link = links[peer];
            long sequence = link.nextRecvSequence();
            for (MemorySegment c : count > 0 ? chunks(dst, type) : List.<MemorySegment>of()) {
                link.readData(ctx, sequence, c);
            }
        });
    }

    @Override
    public void sendRecv(CommBuffer send, int sendPeer, CommBuffer recv, int recvPeer, long count, DataType type) {
        run(RingOp.POINT_TO_POINT, ctx -> {
            MemorySegment src = segment(ctx, send, count, type, "send");
            MemorySegment dst = segment(ctx, recv, count, type, "recv");
            if (sendPeer == rank && recvPeer == rank) {
                copy(src, dst);
                return;
            }
            checkPeer(ctx, sendPeer);
            checkPeer(ctx, recvPeer);
            PeerLink out = links[sendPeer];
            PeerLink in = links[recvPeer];
            long sendSequence = out.nextSendSequence();
            long recvSequence = in.nextRecvSequence();
            if (count == 0) {
                return;
            }
            CompletableFuture<Void> sent = out.submit(ctx, () -> writeChunks(ctx, out, sendSequence, chunks(src, type)));
            for (MemorySegment c : chunks(dst, type)) {
                in.readData(ctx, recvSequence, c);
            }
            await(ctx, sent, out);
        });
    }

    @Override
    public void barrier() {
        run(RingOp.BARRIER, ctx -> {
            if (size > 1) {
                allReduceDirect(ctx, barrierToken, barrierToken, 1, DataType.UINT8, ReduceOp.MAX);
            }
        });
    }

    @Override
    public Communicator split(int color, int key) {
        int[] table = new int[size * 2];
        run(RingOp.SPLIT, ctx -> {
            try (Arena arena = Arena.ofShared()) { // the link writer threads read it too
                MemorySegment mine = arena.allocate(8);
                mine.setAtIndex(ValueLayout.JAVA_INT, 0, color);
                mine.setAtIndex(ValueLayout.JAVA_INT, 1, key);
                MemorySegment all = arena.allocate(8L * size);
                allGatherRing(ctx, mine, all, 8);
                for (int i = 0; i < table.length; i++) {
                    table[i] = all.getAtIndex(ValueLayout.JAVA_INT, i);
                }
            }
        });
        int splitNumber = ++splits;
        if (color < 0) {
            return null;
        }
        List<Integer> members = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            if (table[2 * r] == color) {
                members.add(r);
            }
        }
        members.sort(Comparator.<Integer>comparingInt(r -> table[2 * r + 1]).thenComparingInt(r -> r));
        int newRank = members.indexOf(rank);
        List<String> subEndpoints = members.stream().map(endpoints::get).toList();
        String subTag = tag + "/" + splitNumber + ":" + color;
        long deadline = System.nanoTime() + settings.ioTimeout().toNanos();
        PeerLink[] subLinks = Mesh.connect(listener, this.key, group, generation, subTag, newRank, subEndpoints, settings,
                deadline, "split");
        return new RingCommunicator(newRank, subLinks, settings, listener, this.key, group, generation, subTag,
                subEndpoints);
    }

    @Override
    public long timeNanos(Runnable body) {
        long start = System.nanoTime();
        body.run();
        return System.nanoTime() - start;
    }

    @Override
    public void onFailure(Consumer<CommException> listener) {
        this.failureListener = listener;
    }

    /**
     * Checks, between collectives, whether a peer closed its connection or announced a failure; never blocks, and
     * does nothing while a collective runs (that collective notices by itself). A failure found here breaks the
     * communicator, tells the other peers, and goes to the {@link #onFailure} listener.
     */
    void checkIdleLinks() {
        if (closed || broken != null || !linkReads.tryLock()) {
            return;
        }
        PeerFailedException found = null;
        try {
            for (PeerLink link : links) {
                if (link != null && (found = link.checkIdle()) != null) {
                    break;
                }
            }
            if (closed) {
                return; // closed under the check: the read failed because of that, not because of a peer
            }
            if (found != null) {
                fail(found);
            }
        } finally {
            linkReads.unlock();
        }
        Consumer<CommException> listener = failureListener;
        if (found != null && listener != null) {
            listener.accept(found);
        }
    }

    @Override
    public Map<Integer, TcpCounts> tcpCounters() {
        Map<KernelTcpCounters.Connection, TcpCounts> kernel = KernelTcpCounters.read().orElse(Map.of());
        Map<Integer, TcpCounts> out = new TreeMap<>();
        for (PeerLink link : links) {
            TcpCounts counts = link == null || link.connection == null ? null : kernel.get(link.connection);
            if (counts != null) {
                out.put(link.peerRank, counts);
            }
        }
        return out;
    }

    /** How many links send / receive their payload through shared memory (tests, diagnostics). */
    int sharedMemoryLinks(boolean sending) {
        int count = 0;
        for (PeerLink link : links) {
            if (link != null && (sending ? link.sendsThroughSharedMemory() : link.receivesThroughSharedMemory())) {
                count++;
            }
        }
        return count;
    }

    boolean isUsable() {
        return !closed && broken == null;
    }

    /**
     * Closes every link now, except that ABORT notices a failure on this rank has already queued get
     * {@link #ABORT_NOTICE_GRACE_MILLIS} in all to go out: the worker aborts right after a collective fails, and a
     * notice cut off there made the next rank name this one ("peer rank 1 closed its connection") instead of the
     * rank that failed.
     */
    @Override
    public void abort() {
        boolean noticesQueued = broken != null && !closed;
        if (broken == null) {
            broken = new CommException("abort", rank, "the communicator was aborted");
        }
        closed = true;
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(noticesQueued ? ABORT_NOTICE_GRACE_MILLIS : 0);
        for (PeerLink link : links) {
            if (link != null) {
                link.drainAndClose(Math.max(0, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            }
        }
    }

    @Override
    public synchronized void close() {
        if (closed && !scratchArena.scope().isAlive()) {
            return;
        }
        closed = true;
        for (PeerLink link : links) {
            if (link != null) {
                link.drainAndClose(broken != null ? 2000 : 200);
            }
        }
        if (scratchArena.scope().isAlive()) {
            scratchArena.close();
        }
    }

    @Override
    public String toString() {
        return "RingCommunicator[group=" + group + ", generation=" + generation + ", tag='" + tag + "', rank=" + rank
                + "/" + size + "]";
    }

    // ---------------------------------------------------------------- algorithms

    /** One step: every rank sends its whole buffer to every peer, then reduces all contributions in rank order. */
    private void allReduceDirect(OpContext ctx, MemorySegment src, MemorySegment dst, long count, DataType type,
                                 ReduceOp op) {
        long bytes = count * type.bytes();
        MemorySegment slots = scratch(bytes * (size + 1));
        List<CompletableFuture<Void>> sends = new ArrayList<>();
        // From the next rank on, not from rank 0: the last rank to arrive reaches every rank in turn, and a fixed
        // order would let rank 0 leave every barrier first, so that its waits read as lateness (seen on 2 cores).
        for (int k = 1; k < size; k++) {
            PeerLink link = links[(rank + k) % size];
            long sequence = link.nextSendSequence();
            sends.add(link.submit(ctx, () -> link.writeData(ctx, sequence, src)));
        }
        for (int k = 1; k < size; k++) {
            int peer = (rank + size - k) % size;
            links[peer].readData(ctx, links[peer].nextRecvSequence(), slot(slots, peer, bytes));
        }
        // the same order on every rank gives every rank bit-identical results
        MemorySegment acc = slot(slots, size, bytes);
        copy(rank == 0 ? src : slot(slots, 0, bytes), acc);
        for (int peer = 1; peer < size; peer++) {
            HostReduction.combine(acc, peer == rank ? src : slot(slots, peer, bytes), acc, count, type, op);
        }
        if (op == ReduceOp.AVG) {
            HostReduction.divide(acc, count, type, size);
        }
        for (int i = 0; i < sends.size(); i++) {
            await(ctx, sends.get(i), null);
        }
        copy(acc, dst);
    }

    /** Reduce-scatter then all-gather around the ring, as one pipelined pass of 2(n-1) steps. */
    private void allReduceRing(OpContext ctx, MemorySegment src, MemorySegment dst, long count, DataType type,
                               ReduceOp op) {
        long[] offsets = segmentOffsets(count, type);
        List<MemorySegment> first = chunks(segmentOf(src, offsets, rank), type);
        List<RecvChunk> recvs = new ArrayList<>();
        for (int step = 0; step < size - 1; step++) {
            int s = Math.floorMod(rank - 1 - step, size);
            boolean last = step == size - 2; // this rank completes segment rank+1
            addReduceChunks(recvs, segmentOf(dst, offsets, s), segmentOf(src, offsets, s), type, op,
                    last && op == ReduceOp.AVG);
        }
        for (int step = 0; step < size - 1; step++) {
            int s = Math.floorMod(rank - step, size);
            for (MemorySegment c : chunks(segmentOf(dst, offsets, s), type)) {
                recvs.add(new RecvChunk(c, null, false));
            }
        }
        int lastSegmentChunks = chunks(segmentOf(dst, offsets, Math.floorMod(rank + 2, size)), type).size();
        ringPass(ctx, first, recvs, recvs.size() - lastSegmentChunks, type, op);
    }

    private void allGatherRing(OpContext ctx, MemorySegment src, MemorySegment dst, long blockBytes) {
        if (blockBytes == 0) {
            return;
        }
        copy(src, block(dst, rank, blockBytes));
        if (size == 1) {
            return;
        }
        List<MemorySegment> first = chunks(block(dst, rank, blockBytes), DataType.UINT8);
        List<RecvChunk> recvs = new ArrayList<>();
        for (int step = 0; step < size - 1; step++) {
            for (MemorySegment c : chunks(block(dst, rank - 1 - step, blockBytes), DataType.UINT8)) {
                recvs.add(new RecvChunk(c, null, false));
            }
        }
        int lastBlockChunks = chunkCount(blockBytes, DataType.UINT8);
        ringPass(ctx, first, recvs, recvs.size() - lastBlockChunks, DataType.UINT8, ReduceOp.SUM);
    }

    private void ringPass(OpContext ctx, List<MemorySegment> first, List<RecvChunk> recvs, int forwardCount,
                          DataType type, ReduceOp op) {
        ringPass(ctx, first, recvs, forwardCount, type, op, true, true);
    }

    /**
     * Sends {@code first} then forwards the first {@code forwardCount} received chunks to the next rank (on the
     * link's writer thread) while receiving {@code recvs} from the previous rank here, reducing where asked.
     * Chunk k of the forwarded part leaves as soon as received chunk k is in place.
     */
    private void ringPass(OpContext ctx, List<MemorySegment> first, List<RecvChunk> recvs, int forwardCount,
                          DataType type, ReduceOp op, boolean usesNext, boolean usesPrev) {
        PeerLink next = links[(rank + 1) % size];
        PeerLink prev = links[Math.floorMod(rank - 1, size)];
        CompletableFuture<Void> sent = null;
        if (usesNext) {
            long sequence = next.nextSendSequence();
            int firstCount = first.size();
            long timeout = settings.ioTimeout().toNanos();
            sent = next.submit(ctx, () -> {
                for (int i = 0; i < firstCount + forwardCount; i++) {
                    MemorySegment chunk;
                    if (i < firstCount) {
                        chunk = first.get(i);
                    } else {
                        ctx.awaitChunks(i - firstCount + 1, timeout, prev.peerRank);
                        chunk = recvs.get(i - firstCount).dst();
                    }
                    next.writeData(ctx, sequence, chunk);
                }
            });
        }
        if (usesPrev) {
            long sequence = prev.nextRecvSequence();
            for (RecvChunk chunk : recvs) {
                if (chunk.local() == null) {
                    prev.readData(ctx, sequence, chunk.dst());
                } else {
                    long bytes = chunk.dst().byteSize();
                    long count = bytes / type.bytes();
                    MemorySegment stage = staging.asSlice(0, bytes);
                    prev.readData(ctx, sequence, stage);
                    HostReduction.combine(chunk.local(), stage, chunk.dst(), count, type, op);
                    if (chunk.divide()) {
                        HostReduction.divide(chunk.dst(), count, type, size);
                    }
                }
                ctx.chunkReceived();
            }
        }
        if (sent != null) {
            await(ctx, sent, next);
        }
    }

    private void addReduceChunks(List<RecvChunk> recvs, MemorySegment target, MemorySegment local, DataType type,
                                 ReduceOp op, boolean divide) {
        List<MemorySegment> targetChunks = chunks(target, type);
        List<MemorySegment> localChunks = chunks(local, type);
        for (int i = 0; i < targetChunks.size(); i++) {
            recvs.add(new RecvChunk(targetChunks.get(i), localChunks.get(i), divide));
        }
    }

    private void writeChunks(OpContext ctx, PeerLink link, long sequence, List<MemorySegment> chunks) {
        for (MemorySegment c : chunks) {
            link.writeData(ctx, sequence, c);
        }
    }

    /** A chunk to receive into {@code dst}; if {@code local} is set, dst = local op received (then / size if divide). */
    private record RecvChunk(MemorySegment dst, MemorySegment local, boolean divide) {
    }

    // ---------------------------------------------------------------- plumbing

    private void run(RingOp op, Consumer<OpContext> body) {
        CommException earlier = broken;
        if (earlier instanceof PeerFailedException peer) { // seen while idle, say: still name the peer
            throw new PeerFailedException(op.phase(), rank, peer.peerRank(), "failed: the communicator is unusable"
                    + " after an earlier failure: " + earlier.getMessage(), earlier);
        }
        if (earlier != null) {
            throw new CommException(op.phase(), rank, "the communicator is unusable after an earlier failure: "
                    + earlier.getMessage(), earlier);
        }
        if (closed) {
            throw new CommException(op.phase(), rank, "the communicator is closed");
        }
        OpContext ctx = new OpContext(op, rank, this::wakeAll);
        linkReads.lock();
        try {
            body.accept(ctx);
        } catch (CommException e) {
            ctx.fail(e);
            CommException first = withNoticeOf(ctx, ctx.failure());
            fail(first);
            throw first;
        } catch (RuntimeException e) {
            CommException wrapped = new CommException(op.phase(), rank, e.toString(), e);
            ctx.fail(wrapped);
            fail(ctx.failure());
            throw ctx.failure();
        } finally {
            linkReads.unlock();
        }
    }

    /**
     * A failure that names peer P may be P going away after it sent a notice that another rank failed first (a send
     * to P fails before the notice is read): the notice, if there is one, names the rank that failed.
     */
    private CommException withNoticeOf(OpContext ctx, CommException failure) {
        if (!(failure instanceof PeerFailedException p) || p.peerRank() == rank || p.peerRank() < 0
                || p.peerRank() >= size || links[p.peerRank()] == null) {
            return failure;
        }
        PeerFailedException notice = links[p.peerRank()].noticeSentBeforeClosing(ctx.phase(),
                ABORT_NOTICE_GRACE_MILLIS);
        return notice != null && notice.peerRank() != rank && notice.peerRank() != p.peerRank() ? notice : failure;
    }

    /** Marks the communicator broken and tells every other peer which rank failed, so they can name it. */
    private void fail(CommException cause) {
        if (broken != null || closed || cause instanceof IllegalUse) {
            return; // a bad argument on this rank fails before the wire: the links are still consistent
        }
        broken = cause;
        int failedRank = cause instanceof PeerFailedException p ? p.peerRank() : rank;
        for (PeerLink link : links) {
            if (link != null && link.peerRank != failedRank) {
                link.sendAbortNotice(failedRank);
            }
        }
    }

    private void wakeAll() {
        for (PeerLink link : links) {
            if (link != null) {
                link.wakeUp();
            }
        }
    }

    private void await(OpContext ctx, CompletableFuture<Void> future, PeerLink link) {
        long limit = settings.ioTimeout().toNanos() * 2;
        long start = System.nanoTime();
        while (true) {
            try {
                future.get(100, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException e) {
                ctx.throwIfFailed();
                if (System.nanoTime() - start > limit && link != null && link.nanosSinceWriteProgress() > limit) {
                    throw new CommTimeoutException(ctx.phase(), rank, "sending to peer rank " + link.peerRank
                            + " made no progress for " + TimeUnit.NANOSECONDS.toMillis(limit) + " ms");
                }
            } catch (ExecutionException e) {
                throw e.getCause() instanceof CommException c ? c
                        : new CommException(ctx.phase(), rank, String.valueOf(e.getCause()), e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommException(ctx.phase(), rank, "interrupted", e);
            }
        }
    }

    /** Argument errors: thrown before anything reaches the wire, so they do not break the communicator. */
    static final class IllegalUse extends CommException {
        IllegalUse(String phase, int rank, String message) {
            super(phase, rank, message);
        }
    }

    private MemorySegment segment(OpContext ctx, CommBuffer buffer, long count, DataType type, String role) {
        if (count < 0) {
            throw new IllegalUse(ctx.phase(), rank, "count must be >= 0, was " + count);
        }
        if (!(buffer instanceof RingBuffer ring)) {
            throw new IllegalUse(ctx.phase(), rank, role + " buffer is " + (buffer == null ? "null"
                    : "a " + buffer.getClass().getSimpleName() + ", not a ring buffer from allocate()"));
        }
        long bytes = Math.multiplyExact(count, type.bytes());
        if (!ring.segment().scope().isAlive()) {
            throw new IllegalUse(ctx.phase(), rank, role + " buffer is closed");
        }
        if (ring.byteSize() < bytes) {
            throw new IllegalUse(ctx.phase(), rank, role + " buffer holds " + ring.byteSize() + " bytes but " + count
                    + " x " + type + " needs " + bytes);
        }
        return ring.segment().asSlice(0, bytes);
    }

    private void checkPeer(OpContext ctx, int peer) {
        checkRank(ctx, peer, "peer");
        if (peer == rank) {
            throw new IllegalUse(ctx.phase(), rank, "peer " + peer + " is this rank itself");
        }
    }

    private void checkRank(OpContext ctx, int r, String role) {
        if (r < 0 || r >= size) {
            throw new IllegalUse(ctx.phase(), rank, role + " " + r + " is not a rank of this communicator of size "
                    + size);
        }
    }

    /** Ring segment boundaries in bytes: count split into size parts, the first (count % size) one element larger. */
    private long[] segmentOffsets(long count, DataType type) {
        long[] offsets = new long[size + 1];
        long base = count / size;
        long extra = count % size;
        for (int s = 0; s < size; s++) {
            offsets[s + 1] = offsets[s] + (base + (s < extra ? 1 : 0)) * type.bytes();
        }
        return offsets;
    }

    private static MemorySegment segmentOf(MemorySegment buffer, long[] offsets, int s) {
        return buffer.asSlice(offsets[s], offsets[s + 1] - offsets[s]);
    }

    /** Block {@code index} (taken modulo size, so ring arithmetic can go negative) of a buffer of size blocks. */
    private MemorySegment block(MemorySegment buffer, int index, long blockBytes) {
        return slot(buffer, Math.floorMod(index, size), blockBytes);
    }

    private static MemorySegment slot(MemorySegment buffer, int index, long blockBytes) {
        return buffer.asSlice(index * blockBytes, blockBytes);
    }

    private List<MemorySegment> chunks(MemorySegment segment, DataType type) {
        long chunk = Math.max(type.bytes(), settings.chunkBytes() / type.bytes() * type.bytes());
        List<MemorySegment> out = new ArrayList<>((int) (segment.byteSize() / chunk) + 1);
        for (long offset = 0; offset < segment.byteSize(); offset += chunk) {
            out.add(segment.asSlice(offset, Math.min(chunk, segment.byteSize() - offset)));
        }
        return out;
    }

    private int chunkCount(long bytes, DataType type) {
        long chunk = Math.max(type.bytes(), settings.chunkBytes() / type.bytes() * type.bytes());
        return (int) ((bytes + chunk - 1) / chunk);
    }

    private MemorySegment scratch(long bytes) {
        if (scratch.byteSize() < bytes) {
            scratch = scratchArena.allocate(Math.max(bytes, scratch.byteSize() * 2), 64);
        }
        return scratch.asSlice(0, bytes);
    }

    private static void copy(MemorySegment from, MemorySegment to) {
        if (from.address() != to.address()) {
            MemorySegment.copy(from, 0, to, 0, from.byteSize());
        }
    }
}
