package io.allsum.comm.ring;

import io.allsum.comm.PeerFailedException;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Right after the mesh's handshakes, on every link whose two endpoints name the same host: each end offers the
 * ring of its sending direction ({@link ShmRing}: path, token, capacity) and answers the peer's offer with ACCEPT
 * once it has mapped the file and found the token, else DECLINE. All offers go out before any is read, and all
 * answers before any is read, so no cycle of ranks can wait on each other. A direction without an accepted ring
 * uses TCP for its payload; the creator unlinks its file once answered.
 *
 * <p>Wire, big-endian: {@code "ALSM" kind} with kind NONE(0), OFFER(1) {@code token[16] capacity:long
 * pathLength:short path}, ACCEPT(2), DECLINE(3).
 */
final class SharedMemoryOffer {

    private static final Logger LOG = Logger.getLogger(SharedMemoryOffer.class.getName());
    static final int MAGIC = 0x414C534D; // "ALSM"
    static final byte NONE = 0;
    static final byte OFFER = 1;
    static final byte ACCEPT = 2;
    static final byte DECLINE = 3;
    static final int MAX_PATH = 512;

    /** The rings of one rank's links: {@code out[peer]} it writes, {@code in[peer]} it reads; null means TCP. */
    record Rings(ShmRing[] out, ShmRing[] in) {
        void closeAll() {
            for (ShmRing[] side : List.of(out, in)) {
                for (ShmRing r : side) {
                    RingListener.closeQuietly(r);
                }
            }
        }
    }

    private SharedMemoryOffer() {
    }

    /** Whether two endpoints name the same host (so the same /dev/shm is possible); the token decides the rest. */
    static boolean sameHost(String a, String b) {
        return Endpoints.parse(a).getHostString().equalsIgnoreCase(Endpoints.parse(b).getHostString());
    }

    /** What the rings of one host may hold together, and the least one ring is worth having. */
    static final long HOST_BUDGET_BYTES = 256L << 20, MIN_RING_BYTES = 1L << 20;

    /**
     * One direction's ring when {@code hostRanks} ranks share a host: {@code configured}, shrunk so that the host's
     * hostRanks x (hostRanks - 1) rings fit {@link #HOST_BUDGET_BYTES}, never below {@link #MIN_RING_BYTES}; 0 (TCP
     * for every link, so that all pairs of a host are measured alike) where even that would pass 1 GiB.
     */
    static long ringBytes(int hostRanks, long configured) {
        long rings = (long) hostRanks * (hostRanks - 1);
        if (rings == 0 || rings * Math.min(configured, MIN_RING_BYTES) > 1L << 30) {
            return rings == 0 ? configured : 0;
        }
        return Math.min(configured, Math.max(MIN_RING_BYTES, HOST_BUDGET_BYTES / rings));
    }

    private static int count(boolean[] flags) {
        int c = 0;
        for (boolean f : flags) {
            c += f ? 1 : 0;
        }
        return c;
    }

    /**
     * Negotiates every same-host link of {@code channels} (null entries and this rank's own are skipped). With
     * {@code enabled} false this rank still answers its peers (NONE, DECLINE), since their setting may differ.
     */
    static Rings negotiate(SocketChannel[] channels, int rank, List<String> endpoints, boolean enabled, Path dir,
                           long capacity, long deadlineNanos, String phase) {
        int n = channels.length;
        Rings rings = new Rings(new ShmRing[n], new ShmRing[n]);
        boolean ok = false;
        int peer = -1;
        try {
            boolean[] local = new boolean[n];
            for (peer = 0; peer < n; peer++) {
                local[peer] = peer != rank && channels[peer] != null
                        && sameHost(endpoints.get(rank), endpoints.get(peer));
            }
            long bytes = enabled ? ringBytes(1 + count(local), capacity) : 0;
            for (peer = 0; peer < n; peer++) {
                if (local[peer]) {
                    if (bytes > 0) {
                        rings.out[peer] = create(dir, bytes, rank, peer);
                    }
                    write(channels[peer], offer(rings.out[peer]), deadlineNanos);
                }
            }
            for (peer = 0; peer < n; peer++) {
                byte kind = local[peer] ? readKind(channels[peer], deadlineNanos) : NONE;
                if (kind != NONE && kind != OFFER) {
                    throw new IOException("sent shared-memory kind " + kind + " instead of an offer");
                }
                if (kind == OFFER) {
                    ShmRing accepted = answer(channels[peer], enabled, dir, rank, peer, deadlineNanos);
                    rings.in[peer] = accepted;
                    write(channels[peer], reply(accepted != null ? ACCEPT : DECLINE), deadlineNanos);
                }
            }
            for (peer = 0; peer < n; peer++) {
                ShmRing offered = rings.out[peer];
                if (offered != null) {
                    byte verdict = readKind(channels[peer], deadlineNanos);
                    offered.unlink();
                    if (verdict != ACCEPT) {
                        if (verdict != DECLINE) {
                            throw new IOException("answered the shared-memory offer with kind " + verdict);
                        }
                        String to = endpoints.get(peer);
                        LOG.fine(() -> "rank " + rank + " -> " + to + ": the peer declined the shared-memory"
                                + " ring; payload goes over TCP");
                        offered.close();
                        rings.out[peer] = null;
                    }
                }
            }
            ok = true;
            return rings;
        } catch (IOException e) {
            throw new PeerFailedException(phase, rank, peer, "at " + endpoints.get(peer) + " failed during the"
                    + " shared-memory offer: " + e.getMessage(), e);
        } finally {
            for (ShmRing r : rings.out) {
                if (r != null) {
                    r.unlink();
                }
            }
            if (!ok) {
                rings.closeAll();
            }
        }
    }

    private static ShmRing create(Path dir, long capacity, int rank, int peer) {
        try {
            return ShmRing.create(dir, capacity);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "rank " + rank + " -> " + peer + ": no shared-memory ring in " + dir + " (" + e
                    + "); payload goes over TCP", e);
            return null;
        }
    }

    static ByteBuffer offer(ShmRing ring) {
        if (ring == null) {
            return reply(NONE);
        }
        byte[] path = ring.path.toString().getBytes(StandardCharsets.UTF_8);
        if (path.length > MAX_PATH) {
            throw new IllegalArgumentException("shared-memory path longer than " + MAX_PATH + " bytes");
        }
        return ByteBuffer.allocate(4 + 1 + ShmRing.TOKEN_BYTES + 8 + 2 + path.length).putInt(MAGIC).put(OFFER)
                .put(ring.token).putLong(ring.capacity).putShort((short) path.length).put(path).flip();
    }

    static ByteBuffer reply(byte kind) {
        return ByteBuffer.allocate(5).putInt(MAGIC).put(kind).flip();
    }

    /**
     * Reads the rest of the peer's offer (after its kind); maps its ring if it is one this rank can prove it
     * shares, else null.
     */
    private static ShmRing answer(SocketChannel channel, boolean enabled, Path dir, int rank, int peer,
                                  long deadlineNanos) throws IOException {
        ByteBuffer fixed = read(channel, ShmRing.TOKEN_BYTES + 8 + 2, deadlineNanos);
        byte[] token = new byte[ShmRing.TOKEN_BYTES];
        fixed.get(token);
        long capacity = fixed.getLong();
        int pathLength = Short.toUnsignedInt(fixed.getShort());
        if (pathLength > MAX_PATH) {
            throw new IOException("offered a shared-memory path of " + pathLength + " bytes");
        }
        String path = StandardCharsets.UTF_8.decode(read(channel, pathLength, deadlineNanos)).toString();
        if (!enabled) {
            return null;
        }
        try {
            return ShmRing.open(dir, Path.of(path), token, capacity);
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.FINE, "rank " + rank + " <- " + peer + ": declined the shared-memory ring (" + e
                    + "); payload goes over TCP", e);
            return null;
        }
    }

    private static byte readKind(SocketChannel channel, long deadlineNanos) throws IOException {
        ByteBuffer head = read(channel, 5, deadlineNanos);
        int magic = head.getInt();
        byte kind = head.get();
        if (magic != MAGIC || kind < NONE || kind > DECLINE) {
            throw new IOException("sent 0x" + Integer.toHexString(magic) + " kind " + kind + " instead of a"
                    + " shared-memory offer or answer (a ring of another version?)");
        }
        return kind;
    }

    private static ByteBuffer read(SocketChannel channel, int bytes, long deadlineNanos) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(bytes);
        transfer(channel, buf, deadlineNanos, true);
        return buf.flip();
    }

    private static void write(SocketChannel channel, ByteBuffer buf, long deadlineNanos) throws IOException {
        transfer(channel, buf, deadlineNanos, false);
    }

    /** Non-blocking I/O until {@code buf} is done or the deadline passes: listener-claimed channels are non-blocking. */
    private static void transfer(SocketChannel channel, ByteBuffer buf, long deadlineNanos, boolean read)
            throws IOException {
        if (channel.isBlocking()) {
            channel.configureBlocking(false);
        }
        Selector selector = null;
        try {
            while (buf.hasRemaining()) {
                int n = read ? channel.read(buf) : channel.write(buf);
                if (n < 0) {
                    throw new EOFException("closed its connection");
                }
                if (n > 0) {
                    continue;
                }
                long left = deadlineNanos - System.nanoTime();
                if (left <= 0) {
                    throw new IOException((read ? "sent" : "accepted") + " nothing before the set-up deadline");
                }
                if (selector == null) {
                    selector = Selector.open();
                    channel.register(selector, read ? SelectionKey.OP_READ : SelectionKey.OP_WRITE);
                }
                selector.select(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                selector.selectedKeys().clear();
            }
        } finally {
            RingListener.closeQuietly(selector);
        }
    }
}
