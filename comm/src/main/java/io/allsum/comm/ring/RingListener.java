package io.allsum.comm.ring;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A rank's listening socket. One selector thread accepts, sends each connection a challenge and reads its
 * {@link Handshake} without blocking; a connection is kept (parked until a communicator claims it by key) only once
 * it has proved, with the generation's key, that it comes from a member. Everything else is closed: garbage and
 * false proofs at once, silent or slow handshakes after {@link RingSettings#handshakeTimeout()}, and hellos for a
 * generation this rank has not reached yet at once with a NOT_YET refusal (the peer dials again shortly: ranks
 * set up at slightly different times).
 *
 * <p>An unproved connection costs one descriptor, a nonce and (only if its hello arrives in pieces) one bounded buffer;
 * a whole hello is read into one scratch buffer of the listener. Their number is bounded both in
 * total and per remote address: when a bound is reached the oldest unproved connection (of that address, or of all)
 * is closed to make room, so a flood cannot exhaust descriptors or memory, an honest peer that answers its
 * challenge promptly still gets through, and nothing of the flood outlives its deadline.
 */
final class RingListener implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RingListener.class.getName());
    private static final int MAX_PARKED = 4096;
    private static final long DROP_LOG_EVERY = TimeUnit.SECONDS.toNanos(10);

    /** An accepted connection whose handshake is not proved yet. Selector thread only. */
    private static final class Pending {
        final SocketChannel channel;
        final InetAddress address;
        final byte[] nonce = RingKey.nonce();
        final long acceptedAt = System.nanoTime();
        /** Only for a hello that arrives in pieces; a whole one is read into the listener's scratch buffer. */
        ByteBuffer in;
        SelectionKey selectionKey;

        Pending(SocketChannel channel, InetAddress address) {
            this.channel = channel;
            this.address = address;
        }
    }

    private final ServerSocketChannel server;
    private final Selector selector;
    private final String endpoint;
    private final RingSettings settings;
    private final Thread thread;
    private final Map<SocketChannel, Pending> pending = new LinkedHashMap<>();
    private final ByteBuffer scratch = ByteBuffer.allocate(Handshake.MAX_HELLO_BYTES);
    private final Map<InetAddress, Integer> pendingPerAddress = new HashMap<>();
    private final Map<Handshake.Key, SocketChannel> parked = new HashMap<>();
    private String currentGroup;
    private long currentGeneration;
    private RingKey currentKey;
    private volatile boolean closed;
    private volatile int pendingCount;
    private final AtomicLong dropped = new AtomicLong();
    private long droppedSinceLog;
    private long lastDropLog = System.nanoTime() - DROP_LOG_EVERY; // the first drop is logged at once
    private String lastDropReason;

    RingListener(String bindHost, String advertisedHost, int port, RingSettings settings) throws IOException {
        this.settings = settings;
        this.server = ServerSocketChannel.open();
        Selector opened = null;
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(bindHost, port), 1024);
            server.configureBlocking(false);
            opened = Selector.open();
            server.register(opened, SelectionKey.OP_ACCEPT);
        } catch (IOException | RuntimeException e) {
            closeQuietly(opened);
            server.close();
            throw e;
        }
        this.selector = opened;
        int boundPort = ((InetSocketAddress) server.getLocalAddress()).getPort();
        this.endpoint = Endpoints.format(advertisedHost, boundPort);
        this.thread = Thread.ofPlatform().daemon().name("ring-accept-" + boundPort).start(this::selectLoop);
    }

    String endpoint() {
        return endpoint;
    }

    /** Unproved connections held right now (tests, diagnostics). */
    int pendingHandshakes() {
        return pendingCount;
    }

    /** Connections closed without being kept, since start. */
    long droppedConnections() {
        return dropped.get();
    }

    /**
     * From now on only connections proved with {@code key} for this group and generation are kept (the latest
     * admitted generation wins, whatever its number: a restarted server may number generations anew); parked
     * connections of any other generation are closed.
     */
    synchronized void admit(String group, long generation, RingKey key) {
        currentGroup = group;
        currentGeneration = generation;
        currentKey = key;
        Iterator<Map.Entry<Handshake.Key, SocketChannel>> it = parked.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<Handshake.Key, SocketChannel> e = it.next();
            if (!e.getKey().group().equals(group) || e.getKey().generation() != generation) {
                closeQuietly(e.getValue());
                it.remove();
            }
        }
    }

    /** Waits until the proved connection with this key has arrived, or the deadline passes (null). */
    synchronized SocketChannel claim(Handshake.Key key, long deadlineNanos) throws InterruptedException {
        while (true) {
            SocketChannel p = parked.remove(key);
            if (p != null) {
                return p;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0 || closed) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    // ---------------------------------------------------------------- the selector thread

    private void selectLoop() {
        try {
            while (!closed) {
                long timeoutMillis = nextDeadlineMillis();
                selector.select(timeoutMillis);
                for (SelectionKey k : selector.selectedKeys()) {
                    if (!k.isValid()) {
                        continue;
                    }
                    if (k.isAcceptable()) {
                        acceptAll();
                    } else if (k.isReadable()) {
                        read((Pending) k.attachment());
                    }
                }
                selector.selectedKeys().clear();
                expire();
            }
        } catch (ClosedSelectorException e) {
            // closed under us: close() cleans up
        } catch (IOException | RuntimeException e) {
            if (!closed) {
                LOG.log(Level.SEVERE, "ring listener " + endpoint + " stopped: " + e, e);
            }
        } finally {
            for (Pending p : pending.values()) {
                closeQuietly(p.channel);
            }
            pending.clear();
            pendingPerAddress.clear();
            pendingCount = 0;
        }
    }

    private long nextDeadlineMillis() {
        if (pending.isEmpty()) {
            return 0; // no deadline: wait for a connection
        }
        // the oldest comes first: insertion order
        long next = deadline(pending.values().iterator().next()) - System.nanoTime();
        return Math.max(1, TimeUnit.NANOSECONDS.toMillis(next) + 1);
    }

    private long deadline(Pending p) {
        return p.acceptedAt + settings.handshakeTimeout().toNanos();
    }

    private void acceptAll() {
        while (true) {
            SocketChannel channel;
            try {
                channel = server.accept();
            } catch (ClosedChannelException e) {
                return; // closing
            } catch (IOException e) {
                // out of descriptors, say: the connection waits in the backlog; do not spin on it
                countDrop(InetAddress.getLoopbackAddress(), "accept failed: " + e);
                pause();
                return;
            }
            if (channel == null) {
                return;
            }
            InetAddress address = remoteAddress(channel);
            makeRoomFor(address);
            Pending p = new Pending(channel, address);
            try {
                channel.configureBlocking(false);
                ByteBuffer challenge = Handshake.challenge(p.nonce);
                channel.write(challenge);
                if (challenge.hasRemaining()) {
                    throw new IOException("could not send the challenge");
                }
                p.selectionKey = channel.register(selector, SelectionKey.OP_READ, p);
            } catch (IOException | RuntimeException e) {
                countDrop(address, e.toString());
                closeQuietly(channel);
                continue;
            }
            pending.put(channel, p);
            pendingPerAddress.merge(address, 1, Integer::sum);
            pendingCount = pending.size();
        }
    }

    /** Closes the oldest unproved connection of this address (or of all) when a bound is reached. */
    private void makeRoomFor(InetAddress address) {
        boolean addressFull = pendingPerAddress.getOrDefault(address, 0) >= settings.maxPendingHandshakesPerAddress();
        if (!addressFull && pending.size() < settings.maxPendingHandshakes()) {
            return;
        }
        for (Pending oldest : pending.values()) {
            if (!addressFull || oldest.address.equals(address)) {
                drop(oldest, Handshake.Refusal.BUSY, "evicted: " + pending.size() + " pending handshakes in all, "
                        + pendingPerAddress.getOrDefault(address, 0) + " from " + address);
                return;
            }
        }
    }

    private void read(Pending p) {
        try {
            ByteBuffer buf = p.in != null ? p.in : scratch.clear();
            int n = p.channel.read(buf);
            if (n < 0) {
                drop(p, null, "closed before finishing its handshake");
                return;
            }
            int length = Handshake.expectedLength(buf, buf.position());
            if (length >= 0 && buf.position() > length) {
                drop(p, null, "sent more than a hello before being answered");
            } else if (length >= 0 && buf.position() == length) {
                decide(p, Handshake.parse(buf, length));
            } else if (p.in == null && buf.position() > 0) {
                p.in = ByteBuffer.allocate(Handshake.MAX_HELLO_BYTES).put(buf.flip()); // bounded, rare
            }
        } catch (IOException | RuntimeException e) {
            drop(p, null, e.getMessage());
        }
    }

    /** A complete hello: kept if proved for the admitted generation, else refused and closed. */
    private void decide(Pending p, Handshake.Hello hello) {
        Handshake h = hello.handshake();
        String group;
        long generation;
        RingKey key;
        synchronized (this) {
            group = currentGroup;
            generation = currentGeneration;
            key = currentKey;
        }
        if (key == null || (h.group().equals(group) && h.generation() > generation)) {
            drop(p, Handshake.Refusal.NOT_YET, "generation " + h.generation() + " is not reached yet");
            return;
        }
        if (!h.group().equals(group) || h.generation() < generation) {
            drop(p, Handshake.Refusal.STALE, "stale or foreign: " + h + " (this listener serves group " + group
                    + " generation " + generation + ")");
            return;
        }
        if (!hello.provenWith(key, p.nonce)) {
            drop(p, Handshake.Refusal.BAD_PROOF, "its proof does not match generation " + generation
                    + "'s key (claimed ranks " + h.fromRank() + " -> " + h.toRank() + ")");
            return;
        }
        forget(p);
        ByteBuffer ack = Handshake.ack(Handshake.acceptMac(key, hello.dialerNonce(), p.nonce));
        tryWrite(p.channel, ack);
        if (ack.hasRemaining()) {
            countDrop(p.address, "could not acknowledge a proved handshake");
            closeQuietly(p.channel);
            return;
        }
        synchronized (this) {
            if (closed || parked.size() >= MAX_PARKED || !h.group().equals(currentGroup)
                    || h.generation() != currentGeneration) {
                closeQuietly(p.channel);
                return;
            }
            SocketChannel previous = parked.put(h.key(), p.channel);
            if (previous != null) {
                closeQuietly(previous); // a retried dial: the newest one wins
            }
            notifyAll();
        }
    }

    private void expire() {
        if (pending.isEmpty()) {
            return;
        }
        long now = System.nanoTime();
        for (Pending p : new ArrayList<>(pending.values())) {
            if (now - deadline(p) < 0) {
                return; // the rest are younger
            }
            drop(p, null, "no complete handshake within " + settings.handshakeTimeout().toMillis() + " ms");
        }
    }

    private void drop(Pending p, Handshake.Refusal refusal, String why) {
        forget(p);
        countDrop(p.address, why); // counted before the close: whoever sees the close sees the count
        if (refusal != null) {
            tryWrite(p.channel, Handshake.nack(refusal));
        }
        closeQuietly(p.channel);
    }

    private void forget(Pending p) {
        if (pending.remove(p.channel) != null) {
            pendingPerAddress.computeIfPresent(p.address, (a, n) -> n > 1 ? n - 1 : null);
            pendingCount = pending.size(); // before the channel is closed: whoever sees the close sees the count
        }
        if (p.selectionKey != null) {
            p.selectionKey.cancel();
        }
    }

    /** Logs drops in summaries: a flood must not flood the log too. */
    private void countDrop(InetAddress address, String why) {
        dropped.incrementAndGet();
        droppedSinceLog++;
        lastDropReason = address + ": " + why;
        long now = System.nanoTime();
        if (now - lastDropLog >= DROP_LOG_EVERY) {
            long count = droppedSinceLog;
            String last = lastDropReason;
            LOG.log(Level.INFO, () -> "ring listener " + endpoint + " dropped " + count + " unproved connection"
                    + (count == 1 ? "" : "s") + " (latest from " + last + ")");
            droppedSinceLog = 0;
            lastDropLog = now;
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void tryWrite(SocketChannel channel, ByteBuffer bytes) {
        try {
            channel.write(bytes); // best effort, never blocks: a refusal tells an honest peer why
        } catch (IOException | RuntimeException ignored) {
            // the peer is gone or not listening
        }
    }

    private static InetAddress remoteAddress(SocketChannel channel) {
        try {
            return ((InetSocketAddress) channel.getRemoteAddress()).getAddress();
        } catch (IOException | RuntimeException e) {
            return InetAddress.getLoopbackAddress();
        }
    }

    static void closeQuietly(AutoCloseable c) {
        if (c != null) {
            try {
                c.close();
            } catch (Exception ignored) {
                // closing is best effort: the resource is gone either way
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            parked.values().forEach(RingListener::closeQuietly);
            parked.clear();
            notifyAll();
        }
        selector.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(selector);
        closeQuietly(server);
    }
}
