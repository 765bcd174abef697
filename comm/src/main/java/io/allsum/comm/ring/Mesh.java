package io.allsum.comm.ring;

import io.allsum.comm.CommException;
import io.allsum.comm.CommTimeoutException;
import io.allsum.comm.PeerFailedException;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Connects one rank to every other rank of a communicator: it dials the higher ranks and claims the lower ranks'
 * connections from its listener. Each connection is confirmed both ways (handshake, then acknowledgement) before
 * any data flows, and proved both ways with the generation's {@link RingKey}. Dials retry with backoff while a
 * peer's port refuses or its listener is busy, until the deadline.
 */
final class Mesh {

    private Mesh() {
    }

    static PeerLink[] connect(RingListener listener, RingKey key, String group, long generation, String tag,
                              int rank, List<String> endpoints, RingSettings settings, long deadlineNanos,
                              String phase) {
        int n = endpoints.size();
        SocketChannel[] channels = new SocketChannel[n];
        PeerLink[] links = new PeerLink[n];
        SharedMemoryOffer.Rings rings = null;
        boolean ok = false;
        try {
            for (int peer = rank + 1; peer < n; peer++) {
                channels[peer] = dial(endpoints.get(peer), new Handshake(group, generation, tag, rank, peer, n), key,
                        deadlineNanos, rank, peer, phase, settings);
            }
            for (int peer = 0; peer < rank; peer++) {
                SocketChannel channel = listener.claim(new Handshake.Key(group, generation, tag, peer, rank),
                        deadlineNanos);
                if (channel == null) {
                    throw new PeerFailedException(phase, rank, peer, "at " + endpoints.get(peer)
                            + " did not connect to this rank before the deadline", null);
                }
                channels[peer] = channel;
            }
            rings = SharedMemoryOffer.negotiate(channels, rank, endpoints, settings.sharedMemory(), ShmRing.DEFAULT_DIR,
                    settings.sharedMemoryBytes(), deadlineNanos, phase);
            long timeoutNanos = settings.ioTimeout().toNanos();
            for (int peer = 0; peer < n; peer++) {
                if (peer != rank) {
                    configure(channels[peer], settings);
                    links[peer] = new PeerLink(rank, peer, endpoints.get(peer), channels[peer], timeoutNanos,
                            rings.out()[peer], rings.in()[peer]);
                    rings.out()[peer] = null; // owned (and closed) by the link
                    rings.in()[peer] = null;
                }
            }
            ok = true;
            return links;
        } catch (IOException e) {
            throw new CommException(phase, rank, "setting up connections failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException(phase, rank, "interrupted while connecting", e);
        } finally {
            if (!ok) {
                if (rings != null) {
                    rings.closeAll();
                }
                for (int peer = 0; peer < n; peer++) {
                    RingListener.closeQuietly(links[peer]);
                    RingListener.closeQuietly(channels[peer]);
                }
            }
        }
    }

    /** Connects and proves membership both ways; retries while the peer is absent, busy or not there yet. */
    private static SocketChannel dial(String endpoint, Handshake handshake, RingKey key, long deadlineNanos, int rank,
                                      int peer, String phase, RingSettings settings) throws InterruptedException {
        InetSocketAddress unresolved;
        try {
            unresolved = Endpoints.parse(endpoint);
        } catch (IllegalArgumentException e) {
            throw new CommException(phase, rank, "peer rank " + peer + ": " + e.getMessage());
        }
        long backoffMillis = 20;
        IOException last = null;
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new PeerFailedException(phase, rank, peer, "at " + endpoint + " could not be reached before the"
                        + " deadline" + (last == null ? "" : " (" + last + ")"), last);
            }
            SocketChannel channel = null;
            try {
                channel = SocketChannel.open();
                if (settings.socketBufferBytes() > 0) {
                    channel.setOption(StandardSocketOptions.SO_RCVBUF, settings.socketBufferBytes());
                }
                InetSocketAddress address = new InetSocketAddress(unresolved.getHostString(), unresolved.getPort());
                channel.socket().connect(address, (int) Math.max(1, Math.min(TimeUnit.NANOSECONDS.toMillis(left),
                        Integer.MAX_VALUE)));
                long answerWait = Math.min(settings.handshakeTimeout().toNanos(), deadlineNanos - System.nanoTime());
                channel.socket().setSoTimeout((int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(answerWait)));
                byte[] listenerNonce = Handshake.readChallenge(channel.socket().getInputStream());
                byte[] dialerNonce = RingKey.nonce();
                ByteBuffer hello = handshake.encode(key, listenerNonce, dialerNonce);
                while (hello.hasRemaining()) {
                    channel.write(hello);
                }
                Handshake.readAck(channel.socket().getInputStream(), key, dialerNonce, listenerNonce);
                return channel;
            } catch (ConnectException | NoRouteToHostException | SocketTimeoutException | Handshake.Refused e) {
                if (e instanceof Handshake.Refused r && r.refusal != Handshake.Refusal.BUSY
                        && r.refusal != Handshake.Refusal.NOT_YET) {
                    RingListener.closeQuietly(channel);
                    throw new PeerFailedException(phase, rank, peer, "at " + endpoint + " refused the connection: "
                            + e.getMessage(), e);
                }
                // the peer's listener is not there yet, busy, or its host is slow: retry until the deadline
                last = e;
                RingListener.closeQuietly(channel);
                Thread.sleep(Math.min(backoffMillis, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left))));
                backoffMillis = Math.min(backoffMillis * 2, e instanceof Handshake.Refused ? 200 : 1000);
            } catch (IOException e) {
                RingListener.closeQuietly(channel);
                throw new PeerFailedException(phase, rank, peer, "at " + endpoint + " refused the connection: " + e,
                        e);
            }
        }
    }

    private static void configure(SocketChannel channel, RingSettings settings) throws IOException {
        channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
        channel.setOption(StandardSocketOptions.SO_KEEPALIVE, true);
        if (settings.socketBufferBytes() > 0) {
            channel.setOption(StandardSocketOptions.SO_SNDBUF, settings.socketBufferBytes());
            channel.setOption(StandardSocketOptions.SO_RCVBUF, settings.socketBufferBytes());
        }
    }
}
