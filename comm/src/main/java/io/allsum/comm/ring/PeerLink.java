package io.allsum.comm.ring;

import io.allsum.comm.CommException;
import io.allsum.comm.PeerFailedException;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One TCP connection to a peer, non-blocking, with a deadline on every read and write (the timeout restarts on
 * each byte of progress). Reads happen on the communicator's calling thread; writes on this link's own writer
 * thread, so that a rank sends and receives at the same time.
 *
 * <p>Frames: a 16-byte little-endian header {@code kind | op << 8, length or failed rank, link op sequence} and,
 * for data, the payload. An ABORT frame tells the peer which rank failed, so that ranks that are not next to a
 * dead rank still name it.
 *
 * <p>A direction with a shared-memory ring ({@link ShmRing}, same host only) carries the payload in the ring and
 * only the header on the socket: SHM_DATA, sent once the payload (or, above the ring's capacity, its first piece)
 * is in the ring, is the doorbell; the reader checks it like DATA, then takes the bytes from the ring. A writer
 * waiting for ring space sends NOOP headers, which readers skip, so that a dead peer fails the socket write.
 */
final class PeerLink implements AutoCloseable {

    static final int HEADER_BYTES = 16;
    private static final int KIND_DATA = 1;
    private static final int KIND_ABORT = 2;
    private static final int KIND_SHM_DATA = 3;
    private static final int KIND_NOOP = 4;
    /** A writer waiting this long for ring space sends a NOOP: the write to a dead peer fails. */
    private static final long NOOP_AFTER_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    private static final int SPINS = 64;
    private static final long FINISH_FRAME_NANOS = TimeUnit.SECONDS.toNanos(1);

    final int selfRank;
    final int peerRank;
    final String peerEndpoint;
    private final SocketChannel channel;
    /** The connection as the kernel names it (null where the socket could not say), for its TCP counters. */
    final KernelTcpCounters.Connection connection;
    private final Selector readSelector;
    /** Payload bytes of a TCP data frame whose read was abandoned when its op failed. */
    private long unreadPayload;
    private final Selector writeSelector;
    private final long timeoutNanos;
    private final ExecutorService writer;
    private final ByteBuffer readHeader = ByteBuffer.allocateDirect(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer writeHeader = ByteBuffer.allocateDirect(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer[] readPair = new ByteBuffer[2];
    private final ByteBuffer[] writePair = new ByteBuffer[2];
    private final ByteBuffer[] writeOne = {writeHeader};
    /** The shared-memory rings of the two directions, or null where that direction's payload goes over TCP. */
    private final ShmRing out;
    private final ShmRing in;
    /** Op sequence numbers per direction: both ends count the ops that use this link the same way. */
    private long sendSequence;
    private long recvSequence;
    private volatile boolean closed;
    private volatile long lastWriteProgress = System.nanoTime();

    PeerLink(int selfRank, int peerRank, String peerEndpoint, SocketChannel channel, long timeoutNanos)
            throws IOException {
        this(selfRank, peerRank, peerEndpoint, channel, timeoutNanos, null, null);
    }

    /** {@code out}/{@code in}: this link's rings (it closes them), or null for TCP payload in that direction. */
    PeerLink(int selfRank, int peerRank, String peerEndpoint, SocketChannel channel, long timeoutNanos, ShmRing out,
             ShmRing in) throws IOException {
        this.out = out;
        this.in = in;
        this.selfRank = selfRank;
        this.peerRank = peerRank;
        this.peerEndpoint = peerEndpoint;
        this.channel = channel;
        this.connection = connectionOf(channel);
        this.timeoutNanos = timeoutNanos;
        channel.configureBlocking(false);
        this.readSelector = Selector.open();
        this.writeSelector = Selector.open();
        channel.register(readSelector, SelectionKey.OP_READ);
        channel.register(writeSelector, SelectionKey.OP_WRITE);
        this.writer = Executors.newSingleThreadExecutor(
                Thread.ofPlatform().daemon().name("ring-r" + selfRank + "-to-r" + peerRank).factory());
    }

    private static KernelTcpCounters.Connection connectionOf(SocketChannel channel) {
        try {
            return channel.getLocalAddress() instanceof java.net.InetSocketAddress local
                    && channel.getRemoteAddress() instanceof java.net.InetSocketAddress remote
                    ? KernelTcpCounters.Connection.of(local, remote) : null;
        } catch (IOException e) {
            return null;
        }
    }

    /** Reserves this op's sequence number for frames sent on this link; called on the calling thread. */
    long nextSendSequence() {
        return ++sendSequence;
    }

    long nextRecvSequence() {
        return ++recvSequence;
    }

    /** Runs {@code job} on this link's writer thread; its failure also fails the op so the caller stops waiting. */
    CompletableFuture<Void> submit(OpContext ctx, Runnable job) {
        Send send = new Send(ctx, job);
        try {
            writer.execute(send);
        } catch (RuntimeException e) { // rejected: the link is closed
            send.abandon(e);
        }
        return send.done;
    }

    /** One frame for the writer thread; its future completes when it is sent, fails, or is dropped by a close. */
    private final class Send implements Runnable {
        private final OpContext ctx;
        private final Runnable job;
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Send(OpContext ctx, Runnable job) {
            this.ctx = ctx;
            this.job = job;
        }

        @Override
        public void run() {
            try {
                job.run();
                done.complete(null);
            } catch (CommException e) {
                ctx.fail(e);
                done.completeExceptionally(e);
            } catch (RuntimeException | Error e) {
                CommException wrapped = new CommException(ctx.phase(), selfRank,
                        "sending to peer rank " + peerRank + " failed: " + e, e);
                ctx.fail(wrapped);
                done.completeExceptionally(wrapped);
            }
        }

        /** Never sent: the op waiting on it fails instead of waiting for a writer that is gone. */
        void abandon(Exception cause) {
            CommException closedError = new CommException(ctx.phase(), selfRank,
                    "link to peer rank " + peerRank + " is closed", cause);
            ctx.fail(closedError);
            done.completeExceptionally(closedError);
        }
    }

    /** Whether the payload of the sending / receiving direction goes through shared memory (tests, diagnostics). */
    boolean sendsThroughSharedMemory() {
        return out != null;
    }

    boolean receivesThroughSharedMemory() {
        return in != null;
    }

    /** Sends the chunks of {@code payload} as data frames (on the writer thread). */
    void writeData(OpContext ctx, long sequence, MemorySegment payload) {
        if (out != null) {
            writeShared(ctx, sequence, payload);
            return;
        }
        writeHeader.clear();
        writeHeader.putInt(KIND_DATA | ctx.op.ordinal() << 8).putInt((int) payload.byteSize()).putLong(sequence);
        writeHeader.flip();
        writePair[0] = writeHeader;
        writePair[1] = payload.asByteBuffer();
        writeFully(ctx, writePair);
    }

    /**
     * Copies {@code payload} into the ring, then rings the doorbell. A payload the ring can hold goes in whole;
     * a larger one in pieces as the reader frees space, the doorbell after the first.
     */
    private void writeShared(OpContext ctx, long sequence, MemorySegment payload) {
        long length = payload.byteSize();
        long offset = 0;
        boolean rung = false;
        try {
            while (true) {
                long remaining = length - offset;
                long need = length <= out.capacity ? remaining : Math.min(remaining, Math.max(1, out.capacity / 4));
                long n = Math.min(awaitSpace(ctx, need), remaining);
                if (n > 0) {
                    out.put(payload, offset, n);
                    offset += n;
                    lastWriteProgress = System.nanoTime();
                }
                if (!rung) {
                    writeHeaderOnly(ctx, KIND_SHM_DATA | ctx.op.ordinal() << 8, (int) length, sequence);
                    rung = true;
                }
                if (offset == length) {
                    return;
                }
            }
        } catch (IllegalStateException e) { // the mapping was closed under this copy
            throw closed ? aborted(ctx, e) : e;
        }
    }

    /** Waits until the ring has {@code need} bytes free; returns the free bytes. */
    private long awaitSpace(OpContext ctx, long need) {
        long free = out.free();
        if (free >= need) {
            return free;
        }
        long progressAt = System.nanoTime();
        long noopAt = progressAt;
        long seen = free;
        Backoff backoff = new Backoff();
        while (true) {
            ctx.throwIfFailed();
            if (closed) {
                throw aborted(ctx, null);
            }
            free = out.free();
            if (free >= need) {
                return free;
            }
            long now = System.nanoTime();
            if (free != seen) {
                seen = free;
                progressAt = now;
                lastWriteProgress = now;
            } else if (now - progressAt > timeoutNanos) {
                throw peerFailed(ctx, "accepted no data for " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms",
                        null);
            }
            if (now - noopAt > NOOP_AFTER_NANOS) {
                writeHeaderOnly(ctx, KIND_NOOP, 0, -1);
                noopAt = now;
            }
            backoff.pause();
        }
    }

    private void writeHeaderOnly(OpContext ctx, int kindAndOp, int value, long sequence) {
        writeHeader.clear();
        writeHeader.putInt(kindAndOp).putInt(value).putLong(sequence).flip();
        writeFully(ctx, writeOne);
    }

    /** Best effort: tells the peer that {@code failedRank} failed, then stops sending. Runs on the writer thread. */
    void sendAbortNotice(int failedRank) {
        if (closed) {
            return;
        }
        writer.execute(() -> {
            try {
                writeHeader.clear();
                writeHeader.putInt(KIND_ABORT).putInt(failedRank).putLong(-1).flip();
                long deadline = System.nanoTime() + Math.min(timeoutNanos, TimeUnit.SECONDS.toNanos(2));
                while (writeHeader.hasRemaining() && System.nanoTime() < deadline && !closed) {
                    if (channel.write(writeHeader) == 0) {
                        writeSelector.select(10);
                    }
                }
                channel.shutdownOutput();
            } catch (IOException | RuntimeException ignored) {
                // the peer may be the one that died; it does not need the notice
            }
        });
    }

    /** Reads one data frame of exactly {@code into.byteSize()} bytes into {@code into} (on the calling thread). */
    void readData(OpContext ctx, long sequence, MemorySegment into) {
        if (in != null) {
            readShared(ctx, sequence, into);
            return;
        }
        // readHeader may already hold the first bytes of this frame, read by checkIdle between collectives
        ByteBuffer payload = into.asByteBuffer();
        readPair[0] = readHeader;
        readPair[1] = payload;
        long deadline = System.nanoTime() + timeoutNanos;
        boolean headerChecked = false;
        boolean done = false;
        try {
            while (payload.hasRemaining() || readHeader.hasRemaining()) {
                long n = readHeader.hasRemaining() ? channel.read(readPair) : channel.read(payload);
                if (!headerChecked && !readHeader.hasRemaining()) {
                    checkHeader(ctx, sequence, into.byteSize(), KIND_DATA);
                    headerChecked = true;
                }
                if (n < 0 && headerChecked) {
                    throwNoticeInTornFrame(ctx, payload);
                }
                deadline = afterRead(ctx, n, deadline);
            }
            if (!headerChecked) {
                checkHeader(ctx, sequence, into.byteSize(), KIND_DATA);
            }
            readHeader.clear();
            done = true;
        } catch (IOException e) {
            if (!closed && headerChecked) {
                throwNoticeInTornFrame(ctx, payload);
            }
            throw closed ? aborted(ctx, e) : peerFailed(ctx, "lost the connection (" + e.getMessage() + ")", e);
        } catch (ClosedSelectorException e) {
            throw aborted(ctx, e);
        } finally {
            if (!done && headerChecked) { // abandoned mid-payload: a later scan for a notice starts after it
                readHeader.clear();
                unreadPayload = payload.remaining();
            }
        }
    }

    /**
     * A peer that abandoned a data frame half-written sends its ABORT notice next, then closes: so when the stream
     * ends inside a frame, its last {@link #HEADER_BYTES} are that notice (a notice has sequence -1, no data does).
     */
    private void throwNoticeInTornFrame(OpContext ctx, ByteBuffer payload) {
        int end = payload.position();
        if (end < HEADER_BYTES) {
            return;
        }
        ByteBuffer tail = payload.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int failed = tail.getInt(end - HEADER_BYTES + 4);
        if (tail.getInt(end - HEADER_BYTES) == KIND_ABORT && tail.getLong(end - HEADER_BYTES + 8) == -1
                && failed >= 0) {
            throw abortNotice(ctx.phase(), failed);
        }
    }

    /**
     * After the op failed naming this peer: reads, for at most {@code millis}, what the peer sent before it closed,
     * skipping data frames, and returns its ABORT notice if it sent one (the rank that failed first), else null.
     * Runs on the calling thread, as reads do.
     */
    PeerFailedException noticeSentBeforeClosing(String phase, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        ByteBuffer skipped = ByteBuffer.allocate(64 << 10);
        try {
            while (!closed) {
                long n;
                if (unreadPayload > 0) {
                    skipped.clear().limit((int) Math.min(skipped.capacity(), unreadPayload));
                    n = channel.read(skipped);
                    unreadPayload -= Math.max(0, n);
                } else if (readHeader.hasRemaining()) {
                    n = channel.read(readHeader);
                } else {
                    int kind = readHeader.getInt(0) & 0xFF;
                    if (kind == KIND_ABORT) {
                        return abortNotice(phase, readHeader.getInt(4));
                    }
                    if (kind != KIND_DATA && kind != KIND_SHM_DATA && kind != KIND_NOOP) {
                        return null; // not a frame boundary: nothing more can be read reliably
                    }
                    unreadPayload = kind == KIND_DATA ? readHeader.getInt(4) : 0;
                    readHeader.clear();
                    continue;
                }
                if (n < 0) {
                    return null; // the peer's whole stream is read: it sent no notice
                }
                long left = deadline - System.nanoTime();
                if (n == 0) {
                    if (left <= 0) {
                        return null;
                    }
                    readSelector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    readSelector.selectedKeys().clear();
                }
            }
        } catch (IOException | ClosedSelectorException e) {
            return null;
        }
        return null;
    }

    /** Reads the doorbell of {@code into}'s frame from the socket, then its payload from the ring. */
    private void readShared(OpContext ctx, long sequence, MemorySegment into) {
        long length = into.byteSize();
        long deadline = System.nanoTime() + timeoutNanos;
        try {
            while (readHeader.hasRemaining() || isNoop()) {
                if (!readHeader.hasRemaining()) {
                    readHeader.clear(); // a NOOP: the writer waits for ring space
                    continue;
                }
                long n = channel.read(readHeader);
                deadline = afterRead(ctx, n, deadline);
            }
            checkHeader(ctx, sequence, length, KIND_SHM_DATA);
            readHeader.clear();
            long offset = 0;
            long progressAt = System.nanoTime();
            Backoff backoff = new Backoff();
            while (offset < length) {
                long available = in.available();
                if (available > 0) {
                    long n = Math.min(available, length - offset);
                    in.take(into, offset, n);
                    offset += n;
                    progressAt = System.nanoTime();
                    backoff.reset();
                    continue;
                }
                // only a payload larger than the ring arrives in pieces
                ctx.throwIfFailed();
                if (closed) {
                    throw aborted(ctx, null);
                }
                if (System.nanoTime() - progressAt > timeoutNanos) {
                    throw peerFailed(ctx, "sent nothing for " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms",
                            null);
                }
                if (!backoff.spinning()) {
                    pollWhileWaiting(ctx);
                }
                backoff.pause();
            }
        } catch (IOException e) {
            throw closed ? aborted(ctx, e) : peerFailed(ctx, "lost the connection (" + e.getMessage() + ")", e);
        } catch (ClosedSelectorException e) {
            throw aborted(ctx, e);
        } catch (IllegalStateException e) { // the mapping was closed under this copy
            throw closed ? aborted(ctx, e) : e;
        }
    }

    /** After a socket read of {@code n} bytes: the next deadline, or the wait for more (a closed peer fails). */
    private long afterRead(OpContext ctx, long n, long deadline) throws IOException {
        if (n > 0) {
            return System.nanoTime() + timeoutNanos;
        }
        if (n < 0) {
            throw peerFailed(ctx, "closed its connection", null);
        }
        awaitReady(ctx, readSelector, deadline, "sent nothing", true);
        return deadline;
    }

    /** Pauses between polls of a ring: spins first, then parks from 10 us doubling to 1 ms (ranks share cores). */
    private static final class Backoff {
        private int spins;
        private long park;

        boolean spinning() {
            return spins < SPINS;
        }

        void reset() {
            spins = 0;
            park = 0;
        }

        void pause() {
            if (spins++ < SPINS) {
                Thread.onSpinWait();
            } else {
                park = Math.min(MAX_PARK_NANOS, park == 0 ? 10_000 : park * 2);
                LockSupport.parkNanos(park);
            }
        }
    }

    /**
     * While the rest of a frame is awaited in the ring: reads the start of the next frame from the socket (kept for
     * the next read), so that a peer that closed its connection or sent an ABORT notice is noticed.
     */
    private void pollWhileWaiting(OpContext ctx) throws IOException {
        if (readHeader.hasRemaining() && channel.read(readHeader) < 0) {
            throw peerFailed(ctx, "closed its connection", null);
        }
        if (isNoop()) {
            readHeader.clear();
        } else if (!readHeader.hasRemaining() && (readHeader.getInt(0) & 0xFF) == KIND_ABORT) {
            throw abortNotice(ctx.phase(), readHeader.getInt(4));
        }
    }

    private boolean isNoop() {
        return !readHeader.hasRemaining() && (readHeader.getInt(0) & 0xFF) == KIND_NOOP;
    }

    private PeerFailedException abortNotice(String phase, int failed) {
        return new PeerFailedException(phase, selfRank, failed, failed == peerRank ? "failed"
                : "failed (reported by peer rank " + peerRank + " at " + peerEndpoint + ")", null);
    }

    /**
     * Between collectives (the caller holds the communicator's read lock): reads, without blocking, the start of the
     * next frame if one has come, keeping it for {@link #readData}. A peer that closed its connection, or whose next
     * frame is an ABORT notice, has failed: returns that failure, else null.
     */
    PeerFailedException checkIdle() {
        if (closed) {
            return null;
        }
        try {
            while (true) {
                if (readHeader.hasRemaining() && channel.read(readHeader) < 0) {
                    return new PeerFailedException("idle", selfRank, peerRank, "at " + peerEndpoint
                            + " closed its connection while the group was idle", null);
                }
                if (!isNoop()) {
                    break;
                }
                readHeader.clear(); // a writer's NOOP from the end of the last collective
            }
        } catch (IOException e) {
            return new PeerFailedException("idle", selfRank, peerRank, "at " + peerEndpoint
                    + " lost the connection while the group was idle (" + e.getMessage() + ")", e);
        }
        if (!readHeader.hasRemaining() && (readHeader.getInt(0) & 0xFF) == KIND_ABORT) {
            return abortNotice("idle", readHeader.getInt(4));
        }
        return null;
    }

    private void checkHeader(OpContext ctx, long sequence, long expectedBytes, int dataKind) {
        int kindAndOp = readHeader.getInt(0);
        int value = readHeader.getInt(4);
        long peerSequence = readHeader.getLong(8);
        if ((kindAndOp & 0xFF) == KIND_ABORT) {
            throw abortNotice(ctx.phase(), value);
        }
        int peerOp = kindAndOp >>> 8;
        if ((kindAndOp & 0xFF) != dataKind || peerOp >= RingOp.values().length) {
            throw new CommException(ctx.phase(), selfRank, "peer rank " + peerRank + " at " + peerEndpoint
                    + " sent a corrupt frame header (0x" + Integer.toHexString(kindAndOp) + ")");
        }
        if (peerOp != ctx.op.ordinal() || peerSequence != sequence || value != expectedBytes) {
            throw new CommException(ctx.phase(), selfRank, "peer rank " + peerRank + " is in "
                    + RingOp.values()[peerOp].phase() + " #" + peerSequence + " sending " + value
                    + " bytes, but this rank is in " + ctx.phase() + " #" + sequence + " expecting " + expectedBytes
                    + " bytes: ranks called collectives in a different order or with different counts or types");
        }
    }

    private void writeFully(OpContext ctx, ByteBuffer[] buffers) {
        long deadline = System.nanoTime() + timeoutNanos;
        ByteBuffer last = buffers[buffers.length - 1];
        boolean started = false;
        try {
            while (last.hasRemaining() || buffers[0].hasRemaining()) {
                long n = channel.write(buffers);
                if (n > 0) {
                    started = true;
                    lastWriteProgress = System.nanoTime();
                    deadline = lastWriteProgress + timeoutNanos;
                } else if (started && ctx.failure() != null) {
                    // finish a started frame (briefly) so that the abort notice that follows stays readable
                    deadline = Math.min(deadline, System.nanoTime() + FINISH_FRAME_NANOS);
                    if (closed || System.nanoTime() >= deadline) {
                        ctx.throwIfFailed();
                    }
                    writeSelector.select(10);
                    writeSelector.selectedKeys().clear();
                } else {
                    awaitReady(ctx, writeSelector, deadline, "accepted no data", !started);
                }
            }
        } catch (IOException e) {
            throw closed ? aborted(ctx, e) : peerFailed(ctx, "lost the connection while receiving from this rank ("
                    + e.getMessage() + ")", e);
        } catch (ClosedSelectorException e) {
            throw aborted(ctx, e);
        }
    }

    private void awaitReady(OpContext ctx, Selector selector, long deadline, String silence, boolean stopOnFailure)
            throws IOException {
        if (stopOnFailure) {
            ctx.throwIfFailed();
        }
        if (closed) {
            throw aborted(ctx, null);
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw peerFailed(ctx, silence + " for " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms", null);
        }
        selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        selector.selectedKeys().clear();
        if (stopOnFailure) {
            ctx.throwIfFailed();
        }
    }

    private PeerFailedException peerFailed(OpContext ctx, String what, Throwable cause) {
        return new PeerFailedException(ctx.phase(), selfRank, peerRank, "at " + peerEndpoint + " " + what, cause);
    }

    private CommException aborted(OpContext ctx, Throwable cause) {
        CommException f = ctx.failure();
        return f != null ? f : new CommException(ctx.phase(), selfRank, "the communicator was aborted", cause);
    }

    long nanosSinceWriteProgress() {
        return System.nanoTime() - lastWriteProgress;
    }

    /** Wakes this link's blocked reads and writes so they re-check their op's failure. */
    void wakeUp() {
        readSelector.wakeup();
        writeSelector.wakeup();
    }

    /** Lets queued writes (such as abort notices) finish for at most {@code millis}, then closes. */
    void drainAndClose(long millis) {
        writer.shutdown();
        try {
            writer.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        close();
    }

    @Override
    public void close() {
        closed = true;
        // Frames still queued are dropped: fail their ops, or an abort from another thread leaves a collective
        // waiting forever on a send that will never run.
        for (Runnable dropped : writer.shutdownNow()) {
            if (dropped instanceof Send send) {
                send.abandon(null);
            }
        }
        for (AutoCloseable c : List.<AutoCloseable>of(channel, readSelector, writeSelector)) {
            RingListener.closeQuietly(c);
        }
        RingListener.closeQuietly(out);
        RingListener.closeQuietly(in);
    }
}
