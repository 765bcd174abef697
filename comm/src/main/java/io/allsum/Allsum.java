package io.allsum;

import io.allsum.client.AllsumClient;
import io.allsum.client.AllsumClientException;
import io.allsum.client.HttpAllsumClient;
import io.allsum.client.RetryPolicy;
import io.allsum.comm.CommException;
import io.allsum.comm.CommunicatorFactory;
import io.allsum.comm.join.EnvironmentAliases;
import io.allsum.comm.join.GroupJoin;
import io.allsum.comm.nccl.NcclCommunicatorFactory;
import io.allsum.comm.ring.RingCommunicatorFactory;
import io.allsum.comm.ring.RingSettings;
import io.allsum.model.problem.ProblemCode;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.RankView;

import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * Entry point of the library: {@link #init()} joins the group that the environment names (ALLSUM_SERVER,
 * ALLSUM_GROUP, ALLSUM_RANK, ALLSUM_WORLD_SIZE, ALLSUM_TOKEN, ALLSUM_BACKEND, ALLSUM_DEVICE, with the worker's
 * aliases: torchrun's RANK/WORLD_SIZE/LOCAL_RANK, MLX_*, Slurm's SLURM_PROCID/SLURM_NTASKS/SLURM_LOCALID), and
 * {@link #builder()} sets them in code. Both join through the rendezvous server the way the worker agent does
 * ({@link GroupJoin}) and return a {@link Communicator}; closing it leaves the group.
 */
public final class Allsum {

    private Allsum() {
    }

    /** Joins with the settings of the environment (see {@link Builder#fromEnvironment(Map)}). */
    public static Communicator init() {
        return builder().init();
    }

    /** A builder that starts from the environment's settings; every setter overrides one. */
    public static Builder builder() {
        return new Builder().fromEnvironment(System.getenv());
    }

    /** The settings of one rank's join. Defaults: server http://localhost:8080, group "default", backend auto. */
    public static final class Builder {

        private static final Duration STALE_HOLDER_RETRY = Duration.ofMillis(500);
        private static final RetryPolicy RETRY_BACKOFF =
                new RetryPolicy(Duration.ofMillis(100), 2.0, Duration.ofSeconds(5), Duration.ZERO);

        private URI server = URI.create("http://localhost:8080");
        private String group = "default";
        private Integer rank;
        private Integer worldSize;
        private String token;
        private String backend = "auto";
        private Integer device;
        private boolean sharedMemory = true;
        private String advertiseHost;
        private Duration joinDeadline = Duration.ofMinutes(5);
        private Duration collectiveDeadline = Duration.ofSeconds(60);
        private Duration heartbeatInterval = Duration.ofSeconds(2);

        Builder() {
        }

        /** Takes every setting {@code environment} supplies through the worker's alias table. */
        public Builder fromEnvironment(Map<String, String> environment) {
            EnvironmentAliases.resolve(environment).forEach((name, resolved) -> {
                String v = resolved.value();
                String from = resolved.variable();
                switch (name) {
                    case "server" -> server(v);
                    case "group" -> group(v);
                    case "rank" -> rank(integer(v, from));
                    case "world-size" -> worldSize(integer(v, from));
                    case "token" -> token(v);
                    case "backend" -> backend(v);
                    case "device" -> device(integer(v, from));
                    case "ring-shared-memory" -> sharedMemory(Boolean.parseBoolean(v));
                    default -> { }
                }
            });
            return this;
        }

        public Builder server(String url) {
            this.server = URI.create(Objects.requireNonNull(url, "server"));
            return this;
        }

        public Builder group(String group) {
            this.group = Objects.requireNonNull(group, "group");
            return this;
        }

        public Builder rank(int rank) {
            this.rank = rank;
            return this;
        }

        public Builder worldSize(int worldSize) {
            this.worldSize = worldSize;
            return this;
        }

        /** The rendezvous server's bearer token (null: none). */
        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** {@code auto} (NCCL where CUDA, a GPU and libnccl are present, else the ring), {@code nccl} or {@code ring}. */
        public Builder backend(String backend) {
            String b = Objects.requireNonNull(backend, "backend").strip().toLowerCase(Locale.ROOT);
            if (!b.equals("auto") && !b.equals("nccl") && !b.equals("ring")) {
                throw new IllegalArgumentException("backend must be auto, nccl or ring, was '" + backend + "'");
            }
            this.backend = b;
            return this;
        }

        /** The CUDA device index for NCCL (default: ALLSUM_DEVICE or LOCAL_RANK, else the only visible GPU). */
        public Builder device(int device) {
            this.device = device;
            return this;
        }

        /** Whether ring links between ranks of one host carry their payload through /dev/shm (default true). */
        public Builder sharedMemory(boolean sharedMemory) {
            this.sharedMemory = sharedMemory;
            return this;
        }

        /** The host the ring's peers dial (default: the source address of the route to the server). */
        public Builder advertiseHost(String host) {
            this.advertiseHost = host;
            return this;
        }

        /** How long the whole group may take to form (default 5 min). */
        public Builder joinDeadline(Duration deadline) {
            this.joinDeadline = positive(deadline, "joinDeadline");
            return this;
        }

        /** How long one collective may take before the communicator aborts (default 60 s). */
        public Builder collectiveDeadline(Duration deadline) {
            this.collectiveDeadline = positive(deadline, "collectiveDeadline");
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = positive(interval, "heartbeatInterval");
            return this;
        }

        /**
         * Joins the group and builds the communicator, retrying what may pass (an unreachable server, a failed
         * generation) until the join deadline.
         *
         * @throws CommException (phase init) naming this rank and the cause; never exits the JVM
         */
        public Communicator init() {
            validate();
            return init(HttpAllsumClient.builder(server).token(token).build());
        }

        /** Joins through {@code client}, which the communicator then owns (tests use an in-memory server). */
        Communicator init(AllsumClient client) {
            validate();
            CommunicatorFactory factory;
            try {
                factory = factory();
            } catch (RuntimeException e) {
                client.close();
                throw e;
            }
            String instanceId = "lib-r" + rank + "-" + UUID.randomUUID();
            GroupJoin join = new GroupJoin(client, factory, group, rank, worldSize, instanceId, hostName(), null);
            try {
                return join(join);
            } catch (RuntimeException e) {
                closeFactory(factory);
                client.close();
                throw e;
            }
        }

        private void validate() {
            if (rank == null || worldSize == null) {
                throw new IllegalStateException("the rank and the world size are required (ALLSUM_RANK and"
                        + " ALLSUM_WORLD_SIZE, RANK and WORLD_SIZE, or the builder's rank() and worldSize())");
            }
            if (worldSize < 1 || rank < 0 || rank >= worldSize) {
                throw new IllegalArgumentException("rank " + rank + " is not within world size " + worldSize);
            }
        }

        private Communicator join(GroupJoin join) {
            long end = System.nanoTime() + joinDeadline.toNanos();
            long lastGeneration = 0;
            int failures = 0;
            while (true) {
                Duration left = Duration.ofNanos(end - System.nanoTime());
                if (left.isNegative() || left.isZero()) {
                    throw new CommException("init", rank, "group '" + group + "' did not form within "
                            + joinDeadline);
                }
                GroupView view = null;
                try {
                    RankView answer = join.join(lastGeneration, left);
                    lastGeneration = Math.max(lastGeneration, answer.generation());
                    view = join.fullView(answer);
                    return new Communicator(join, view, join.build(view, collectiveDeadline), heartbeatInterval);
                } catch (AllsumClientException e) {
                    if (GroupJoin.isAny(e, GroupJoin.PERMANENT_REJECTIONS) || e.timedOut()) {
                        throw new CommException("init", rank, "rendezvous server " + server + ": "
                                + e.getMessage(), e);
                    }
                    // A restarted program finds its rank held by its predecessor until the server drops it.
                    sleep(e.is(ProblemCode.RANK_HELD) ? STALE_HOLDER_RETRY : RETRY_BACKOFF.pauseAtLeastHalf(
                            ++failures));
                } catch (CommException e) {
                    if (view != null) {
                        try {
                            join.reportFailure(view.generation(), e);
                        } catch (RuntimeException ignored) {
                            // the others learn it from their own set-up or heartbeats
                        }
                    }
                    if (System.nanoTime() - end >= 0) {
                        throw e;
                    }
                    sleep(RETRY_BACKOFF.pauseAtLeastHalf(++failures));
                }
            }
        }

        private CommunicatorFactory factory() {
            NcclCommunicatorFactory nccl = backend.equals("ring") ? null
                    : new NcclCommunicatorFactory(device, collectiveDeadline);
            if (nccl != null && nccl.isAvailable()) {
                return nccl;
            }
            if (nccl != null) {
                String why = nccl.unavailableReason();
                nccl.close();
                if (backend.equals("nccl")) {
                    throw new CommException("init", rank, "backend nccl was requested but cannot run here: " + why);
                }
            }
            String advertised = advertiseHost != null ? advertiseHost : routeTo(server);
            boolean local = InetAddressCheck.isLoopback(advertised);
            RingSettings settings = RingSettings.DEFAULTS.withIoTimeout(collectiveDeadline).withSharedMemory(sharedMemory);
            return new RingCommunicatorFactory(local ? advertised : "0.0.0.0", advertised, 0, settings);
        }

        private static void closeFactory(CommunicatorFactory factory) {
            if (factory instanceof AutoCloseable c) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // already failing: the join's error is the one to report
                }
            }
        }

        /** The source address of the route to the server (a "connected" UDP socket sends nothing). */
        static String routeTo(URI server) {
            String host = server.getHost() == null ? "localhost" : server.getHost();
            try (DatagramSocket probe = new DatagramSocket()) {
                InetAddress target = InetAddress.getByName(host);
                if (target.isLoopbackAddress()) {
                    return "127.0.0.1";
                }
                probe.connect(new InetSocketAddress(target, server.getPort() > 0 ? server.getPort() : 80));
                InetAddress local = probe.getLocalAddress();
                return local == null || local.isAnyLocalAddress() ? "127.0.0.1" : local.getHostAddress();
            } catch (IOException e) {
                return "127.0.0.1";
            }
        }

        private static String hostName() {
            try {
                return InetAddress.getLocalHost().getHostName();
            } catch (UnknownHostException e) {
                return "localhost";
            }
        }

        private static int integer(String value, String variable) {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(variable + " must be an integer, was '" + value + "'");
            }
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }

        private void sleep(Duration d) {
            try {
                Thread.sleep(d);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommException("init", rank, "interrupted while joining group '" + group + "'", e);
            }
        }
    }

    private static final class InetAddressCheck {
        static boolean isLoopback(String host) {
            return host.equals("localhost") || host.startsWith("127.") || host.equals("::1");
        }
    }
}
