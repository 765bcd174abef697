package io.allsum.worker.comm.ring;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A rank's listening socket. Accepts in the background, reads each connection's {@link Handshake} on a virtual
 * thread (a silent or garbage-sending client cannot stall anyone), drops foreign and stale connections, and keeps
 * valid ones until a communicator claims them by key. Connections can arrive before the communicator that wants
 * them exists (peers set up at different speeds), hence the parking.
 */
final class RingListener implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(RingListener.class.getName());
    private static final int MAX_PARKED = 4096;

    private final ServerSocketChannel server;
    private final String endpoint;
    private final RingSettings settings;
    private final Thread acceptor;
    private final Map<Handshake.Key, SocketChannel> parked = new HashMap<>();
    private String currentGroup;
    private long currentGeneration = Long.MIN_VALUE;
    private volatile boolean closed;

    RingListener(String bindHost, String advertisedHost, int port, RingSettings settings) throws IOException {
        this.settings = settings;
        this.server = ServerSocketChannel.open();
        try {
            server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
            server.bind(new InetSocketAddress(bindHost, port), 1024);
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        int boundPort = ((InetSocketAddress) server.getLocalAddress()).getPort();
        this.endpoint = Endpoints.format(advertisedHost, boundPort);
        this.acceptor = Thread.ofPlatform().daemon().name("ring-accept-" + boundPort).start(this::acceptLoop);
    }

    String endpoint() {
        return endpoint;
    }

    /** From now on only this group's generations >= {@code generation} are kept; older parked ones are closed. */
    synchronized void admit(String group, long generation) {
        if (!group.equals(currentGroup) || generation > currentGeneration) {
            currentGroup = group;
            currentGeneration = generation;
            Iterator<Map.Entry<Handshake.Key, SocketChannel>> it = parked.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Handshake.Key, SocketChannel> e = it.next();
                if (!isCurrent(e.getKey())) {
                    closeQuietly(e.getValue());
                    it.remove();
                }
            }
        }
    }

    /** Waits until the connection with this key has arrived (and passed its handshake), or the deadline passes. */
    synchronized SocketChannel claim(Handshake.Key key, long deadlineNanos) throws InterruptedException {
        while (true) {
            SocketChannel channel = parked.remove(key);
            if (channel != null) {
                return channel;
            }
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0 || closed) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    private boolean isCurrent(Handshake.Key key) {
        return currentGroup == null || (key.group().equals(currentGroup) && key.generation() >= currentGeneration);
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SocketChannel channel = server.accept();
                Thread.ofVirtual().name("ring-handshake").start(() -> readHandshake(channel));
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!closed) {
                    LOG.log(Level.WARNING, "accept failed on " + endpoint + ": " + e.getMessage());
                    pause();
                }
            }
        }
    }

    private void readHandshake(SocketChannel channel) {
        Handshake handshake;
        try {
            channel.socket().setSoTimeout((int) Math.min(Integer.MAX_VALUE, settings.handshakeTimeout().toMillis()));
            handshake = Handshake.read(channel.socket().getInputStream());
        } catch (IOException | RuntimeException e) {
            LOG.log(Level.INFO, () -> "dropped a connection to " + endpoint + " from " + remote(channel) + ": "
                    + e);
            closeQuietly(channel);
            return;
        }
        synchronized (this) {
            if (closed || !isCurrent(handshake.key()) || parked.size() >= MAX_PARKED) {
                LOG.log(Level.INFO, () -> "dropped a stale or foreign ring connection " + handshake + " (this listener"
                        + " serves group " + currentGroup + " generation " + currentGeneration + ")");
                closeQuietly(channel);
                return;
            }
            SocketChannel previous = parked.put(handshake.key(), channel);
            if (previous != null) {
                closeQuietly(previous); // a retried dial: the newest one wins
            }
            notifyAll();
        }
    }

    private static String remote(SocketChannel channel) {
        try {
            return String.valueOf(channel.getRemoteAddress());
        } catch (IOException e) {
            return "?";
        }
    }

    private static void pause() {
        try {
            Thread.sleep(50);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
            closed = true;
            parked.values().forEach(RingListener::closeQuietly);
            parked.clear();
            notifyAll();
        }
        closeQuietly(server);
    }
}
