package io.allsum.comm.ring;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.CommunicatorFactory;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Builds {@link RingCommunicator}s. {@link #prepareJoin} opens this rank's listening socket (once; it stays open
 * across generations so the endpoint is stable) and, on rank 0, makes the generation's secret unique id (handed by
 * the server to the members only); {@link #create} connects the generation's full mesh through the members'
 * endpoints, every connection proved with the key derived from that id ({@link RingKey}), and watches the links of
 * idle communicators for peers that die.
 */
public final class RingCommunicatorFactory implements CommunicatorFactory, AutoCloseable {

    private final String bindHost;
    private final String advertisedHost;
    private final int port;
    private final RingSettings settings;
    private RingListener listener;
    private ScheduledExecutorService watcher;

    /**
     * @param bindHost       the address to listen on ("0.0.0.0", "::", "127.0.0.1")
     * @param advertisedHost the host peers dial (published in the join as host:port)
     * @param port           the port to listen on; 0 picks a free one
     */
    public RingCommunicatorFactory(String bindHost, String advertisedHost, int port, RingSettings settings) {
        this.bindHost = Objects.requireNonNull(bindHost, "bindHost");
        this.advertisedHost = Objects.requireNonNull(advertisedHost, "advertisedHost");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port must be 0..65535, was " + port);
        }
        this.port = port;
        this.settings = Objects.requireNonNull(settings, "settings");
    }

    public RingCommunicatorFactory(String bindHost, String advertisedHost, int port) {
        this(bindHost, advertisedHost, port, RingSettings.DEFAULTS);
    }

    /** Listens on 127.0.0.1, on a free port: ranks of one host (tests, benchmarks, the laptop demo). */
    public static RingCommunicatorFactory loopback(RingSettings settings) {
        return new RingCommunicatorFactory("127.0.0.1", "127.0.0.1", 0, settings);
    }

    public RingSettings settings() {
        return settings;
    }

    @Override
    public Backend backend() {
        return Backend.RING;
    }

    @Override
    public boolean isAvailable() {
        return true;
    }

    @Override
    public String unavailableReason() {
        return "";
    }

    @Override
    public synchronized JoinContribution prepareJoin(int rank) {
        return new JoinContribution(rank == 0 ? RingKey.newUniqueId() : null, listener(rank).endpoint(), null);
    }

    /** This rank's endpoint, opening the listener if needed. */
    public synchronized String endpoint() {
        return listener(-1).endpoint();
    }

    /** The listening socket (opened if needed): for tests and diagnostics of this package. */
    synchronized RingListener listener() {
        return listener(-1);
    }

    private RingListener listener(int rank) {
        if (listener == null) {
            try {
                listener = new RingListener(bindHost, advertisedHost, port, settings);
            } catch (IOException e) {
                throw new CommException("prepare_join", rank, "cannot listen on " + Endpoints.format(bindHost, port)
                        + ": " + e.getMessage(), e);
            }
        }
        return listener;
    }

    @Override
    public Communicator create(GroupView view, int rank, Duration deadline) {
        Objects.requireNonNull(view, "view");
        long deadlineNanos = System.nanoTime() + (deadline == null ? settings.ioTimeout() : deadline).toNanos();
        List<Member> members = new ArrayList<>(view.members());
        members.sort(Comparator.comparingInt(Member::rank));
        int n = members.size();
        if (n == 0 || n != view.worldSize()) {
            throw new CommException("init", rank, "group " + view.group() + " generation " + view.generation()
                    + " lists " + n + " members for world size " + view.worldSize());
        }
        List<String> endpoints = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            Member m = members.get(r);
            if (m.rank() != r) {
                throw new CommException("init", rank, "members of generation " + view.generation()
                        + " are not ranks 0.." + (n - 1) + " (rank " + r + " is missing)");
            }
            if (m.endpoint() == null || m.endpoint().isBlank()) {
                throw new CommException("init", rank, "member rank " + r + " has no endpoint (the ring backend"
                        + " needs every member's host:port)");
            }
            endpoints.add(m.endpoint());
        }
        if (rank < 0 || rank >= n) {
            throw new CommException("init", rank, "rank is outside world size " + n);
        }
        RingKey key = null;
        if (n > 1 && (view.uniqueId() == null || view.uniqueId().isBlank())) {
            throw new CommException("init", rank, "generation " + view.generation() + " of group " + view.group()
                    + " came without a unique id: the ring needs rank 0's secret id to authenticate its connections"
                    + " (is the rendezvous server older than this worker?)");
        }
        try {
            if (view.uniqueId() != null) {
                key = RingKey.derive(view.uniqueId(), view.group(), view.generation());
            }
        } catch (IllegalArgumentException e) {
            throw new CommException("init", rank, e.getMessage());
        }
        RingListener own;
        ScheduledExecutorService watch;
        synchronized (this) {
            own = listener(rank);
            watch = watcher();
        }
        if (n > 1 && !endpoints.get(rank).equals(own.endpoint())) {
            throw new CommException("init", rank, "the view gives this rank endpoint " + endpoints.get(rank)
                    + " but this factory listens on " + own.endpoint() + " (a stale view, or prepareJoin of another"
                    + " factory)");
        }
        own.admit(view.group(), view.generation(), key);
        PeerLink[] links = Mesh.connect(own, key, view.group(), view.generation(), "", rank, endpoints, settings,
                deadlineNanos, "init");
        RingCommunicator communicator = new RingCommunicator(rank, links, settings, own, key, view.group(),
                view.generation(), "", endpoints);
        watch(watch, communicator);
        return communicator;
    }

    /** Checks the communicator's idle links every {@link RingSettings#idleCheck()} until it is closed or broken. */
    private void watch(ScheduledExecutorService watch, RingCommunicator communicator) {
        long period = settings.idleCheck().toNanos();
        ScheduledFuture<?>[] task = new ScheduledFuture<?>[1];
        synchronized (task) {
            task[0] = watch.scheduleWithFixedDelay(() -> {
                if (!communicator.isUsable()) {
                    synchronized (task) {
                        task[0].cancel(false);
                    }
                    return;
                }
                communicator.checkIdleLinks();
            }, period, period, TimeUnit.NANOSECONDS);
        }
    }

    private ScheduledExecutorService watcher() {
        if (watcher == null) {
            watcher = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("ring-watch")
                    .factory());
        }
        return watcher;
    }

    /** Stops listening. Communicators already created keep their connections. */
    @Override
    public synchronized void close() {
        if (listener != null) {
            listener.close();
            listener = null;
        }
        if (watcher != null) {
            watcher.shutdownNow();
            watcher = null;
        }
    }

}
