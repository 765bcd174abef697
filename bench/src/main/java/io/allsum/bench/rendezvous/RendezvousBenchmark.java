package io.allsum.bench.rendezvous;

import io.allsum.client.ServerUrl;
import io.allsum.client.AllsumJson;
import io.allsum.model.rendezvous.GzipBodies;
import io.allsum.client.HttpAllsumClient;
import io.allsum.model.Backend;
import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import tools.jackson.databind.JsonNode;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * Rendezvous benchmark (issue 2, item 8): N simulated ranks join one group over real HTTP. Per round, N-1 ranks
 * join concurrently and wait on the server; once the server shows them all joined, the last rank posts at t0.
 * Measured: t0 until EVERY rank holds the complete GroupView (the figure TCPStore needs 30.8 ms for at 1024 ranks),
 * and joins per second over the whole round (N / (last answer - first join sent)). Then the group is deleted.
 *
 * <p>The client must not be the bottleneck: the waiting ranks spread over client processes (--procs), one HTTP/1.1
 * client per process on virtual threads with a connection per rank (or, with --clients per-rank, a client and a
 * platform thread per rank; with --clients allsum, a platform thread per rank joining through the process's HttpAllsumClient, as a worker joins); bodies
 * serialized before the clock starts, and answers only checksummed (one is parsed and checked). Like HttpAllsumClient,
 * each rank asks for gzip, so the server sends the view gzipped (about a tenth of the bytes).
 */
@Command(name = "bench-rendezvous", mixinStandardHelpOptions = true,
        description = "Measures how fast the rendezvous server hands the group view to N simulated ranks.")
public final class RendezvousBenchmark implements Callable<Integer> {

    private static final Duration POLL_INTERVAL = Duration.ofMillis(2);
    private static final Duration RETRY_PAUSE = Duration.ofMillis(20);

    @Spec
    CommandSpec spec;

    @Option(names = "--server", required = true, description = "Rendezvous server base URL, e.g. http://127.0.0.1:8080")
    URI server;

    @Option(names = "--token", defaultValue = "${env:ALLSUM_TOKEN}", description = "Bearer token (default: $ALLSUM_TOKEN)")
    String token;

    @Option(names = "--ranks", split = ",", defaultValue = "64,256,1024,4096", description = "World sizes to measure")
    List<Integer> ranks;

    @Option(names = "--rounds", defaultValue = "5", description = "Measured rounds per world size")
    int rounds;

    @Option(names = "--warmup", defaultValue = "1", description = "Unmeasured rounds per world size, run first")
    int warmup;

    @Option(names = "--backend", defaultValue = "nccl", description = "nccl (rank 0 brings a 128-byte id) or ring")
    String backend;

    @Option(names = "--join-wait", defaultValue = "60", description = "Server-side wait of each join, seconds")
    int joinWaitSeconds;

    @Option(names = "--round-timeout", defaultValue = "300", description = "Deadline of one round, seconds")
    int roundTimeoutSeconds;

    @Option(names = "--server-pid", description = "Server process id: its VmRSS/VmHWM are read after each world size")
    Long serverPid;

    @Option(names = "--identity", description = "Do not send Accept-Encoding: gzip (plain JSON answers, as curl gets)")
    boolean identity;

    @Option(names = "--view", defaultValue = "rank", description = "rank: the compact per-rank answer (view=rank, "
            + "what HttpAllsumClient asks for); full: every rank gets the whole member list (older clients)")
    String view;

    @Option(names = "--procs", defaultValue = "0", description = "Spread the waiting ranks over this many client "
            + "processes (JVMs of this class, each with its own HTTP client and keep-alive connections); 0: all in "
            + "this process")
    int procs;

    @Option(names = "--fresh", description = "Start the client processes anew for every round (warm-up rounds "
            + "included), so that each rank's join is its JVM's first, as when workers have just started; needs --procs")
    boolean fresh;

    @Option(names = "--child-java-option", paramLabel = "OPTION", description = "A JVM option of the client processes, "
            + "e.g. -XX:TieredStopAtLevel=1 (repeatable)")
    List<String> childJavaOptions = new ArrayList<>();

    @Option(names = "--hold", defaultValue = "0", description = "Seconds to hold the N-1 parked joins before the "
            + "last rank posts (e.g. 0.2, as the TCPStore reference waits before it publishes); the server's RSS is "
            + "read at the end of the hold (the 'parked rss' column)")
    double holdSeconds;

    @Option(names = "--client-executor", defaultValue = "direct", description = "direct: the HTTP client's selector "
            + "thread completes each response (as HttpAllsumClient does); virtual: it hands them to virtual threads")
    String clientExecutor;

    @Option(names = "--clients", defaultValue = "shared", description = "shared: the ranks of one process share one "
            + "HTTP client (one selector thread reads their answers) on virtual threads; per-rank: each rank has its "
            + "own HTTP client and platform thread, as a worker process has (on the 32-core GPU host that was slower "
            + "from 256 ranks: thousands of client threads woke at once, docs/benchmarks/rendezvous.md); allsum: each rank "
            + "joins on its own platform thread through the process's one HttpAllsumClient, as a worker does "
            + "(rank view only)")
    String clients;

    @Option(names = "--child-index", hidden = true, description = "Internal: run as client process INDEX of --procs")
    Integer childIndex;

    @Option(names = "--inflate-all", description = "Inflate every gzip answer before it counts as received "
            + "(by default only rank 0's is inflated and parsed; every rank's wire bytes are checksummed)")
    boolean inflateAll;

    public static void main(String[] args) {
        System.exit(new CommandLine(new RendezvousBenchmark()).execute(args));
    }

    @Override
    public Integer call() {
        Backend chosen = parseBackend();
        validate();
        PrintWriter err = spec.commandLine().getErr();
        try {
            return run(chosen, spec.commandLine().getOut(), err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            err.println("bench-rendezvous: interrupted");
            return 130;
        } catch (Exception e) {
            err.println("bench-rendezvous: " + (e.getMessage() != null ? e.getMessage() : e.toString()));
            return 1;
        } finally {
            err.flush();
        }
    }

    private int run(Backend chosen, PrintWriter out, PrintWriter err) throws Exception {
        String base = server.toString().replaceAll("/+$", "");
        boolean perRank = !clients.equals("shared");
        try (ExecutorService virtualThreads = Executors.newVirtualThreadPerTaskExecutor();
             ExecutorService threads = perRank
                     ? Executors.newThreadPerTaskExecutor(Thread.ofPlatform().daemon().name("rank-", 0).factory())
                     : virtualThreads;
             Session session = new Session(() -> HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                     .connectTimeout(Duration.ofSeconds(10))
                     .executor(clientExecutor.equals("direct") ? Runnable::run : virtualThreads).build(),
                     perRank, threads, base, token, chosen, joinWaitSeconds, Duration.ofSeconds(roundTimeoutSeconds),
                     !identity, inflateAll, view.equals(Protocol.VIEW_RANK))) {
            if (clients.equals("allsum")) {
                session.allsum = HttpAllsumClient.builder(base).token(token).build();
            }
            if (childIndex != null) {
                return ForkedRanks.serve(session, childIndex, procs);
            }
            session.checkReachable();
            if (procs > 0) {
                session.fork(() -> ForkedRanks.start(procs, childJavaOptions, childArguments(), token), fresh);
            }
            session.holdSeconds = holdSeconds;
            session.serverPid = serverPid;
            out.println("# bench-rendezvous: server " + base + ", backend " + chosen + ", view " + view + ", answers "
                    + (identity ? "identity" : inflateAll ? "gzip, every one inflated" : "gzip") + ", client "
                    + (procs > 0 ? procs + (fresh ? " fresh" : "") + " processes" : "in-process")
                    + " (" + clients + " clients, " + clientExecutor
                    + " executor), rounds " + rounds + " (+" + warmup + " warm-up), client " + Runtime.getRuntime().availableProcessors()
                    + " cpus, "
                    + Machine.cpuModel().orElse("unknown cpu") + ", load average " + Machine.loadAverage().orElse("n/a"));
            out.flush();
            List<Row> rows = new ArrayList<>();
            for (int n : ranks) {
                for (int w = 0; w < warmup; w++) {
                    RoundResult r = session.round(n);
                    err.printf(Locale.ROOT, "# %5d ranks warm-up  : %s%n", n, r.describe()).flush();
                }
                List<RoundResult> results = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    RoundResult r = session.round(n);
                    results.add(r);
                    err.printf(Locale.ROOT, "# %5d ranks round %2d : %s%n", n, round + 1, r.describe()).flush();
                }
                OptionalLong rss = serverPid == null ? OptionalLong.empty() : Machine.rssKiB(serverPid, "VmRSS");
                OptionalLong hwm = serverPid == null ? OptionalLong.empty() : Machine.rssKiB(serverPid, "VmHWM");
                rows.add(Row.of(n, results, session.serverMemoryUsedBytes(), rss, hwm));
            }
            out.print(formatTable(rows));
            out.flush();
            return 0;
        } finally {
            ForkedRanks.stopAll();
        }
    }

    /** What a client process is started with: this run's settings, minus what only the parent uses. */
    private List<String> childArguments() {
        List<String> args = new ArrayList<>(List.of("--server", server.toString(), "--backend", backend, "--view",
                view, "--join-wait", Integer.toString(joinWaitSeconds), "--round-timeout",
                Integer.toString(roundTimeoutSeconds), "--procs", Integer.toString(procs), "--client-executor",
                clientExecutor, "--clients", clients));
        if (identity) {
            args.add("--identity");
        }
        if (inflateAll) {
            args.add("--inflate-all");
        }
        return args;
    }

    private Backend parseBackend() {
        try {
            return Backend.fromWire(backend);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), "--backend: " + e.getMessage());
        }
    }

    private void validate() {
        if (ranks.isEmpty() || ranks.stream().anyMatch(n -> n < 1 || n > Protocol.DEFAULT_MAX_WORLD_SIZE)) {
            throw new ParameterException(spec.commandLine(), "--ranks: each world size must be 1 to "
                    + Protocol.DEFAULT_MAX_WORLD_SIZE + ", was " + ranks);
        }
        if (rounds < 1 || warmup < 0 || joinWaitSeconds < 1 || roundTimeoutSeconds < 1) {
            throw new ParameterException(spec.commandLine(),
                    "--rounds, --join-wait and --round-timeout must be >= 1 and --warmup >= 0");
        }
        if (procs < 0 || procs > 256 || !(holdSeconds >= 0 && holdSeconds <= 3600)) {
            throw new ParameterException(spec.commandLine(), "--procs must be 0 to 256 and --hold 0 to 3600 seconds");
        }
        if ((fresh || !childJavaOptions.isEmpty()) && procs == 0) {
            throw new ParameterException(spec.commandLine(), "--fresh and --child-java-option need --procs");
        }
        if (!clientExecutor.equals("virtual") && !clientExecutor.equals("direct")) {
            throw new ParameterException(spec.commandLine(), "--client-executor must be virtual or direct, was "
                    + clientExecutor);
        }
        if (!List.of("shared", "per-rank", "allsum").contains(clients)) {
            throw new ParameterException(spec.commandLine(), "--clients must be shared, per-rank or allsum, was "
                    + clients);
        }
        if (clients.equals("allsum") && !view.equals(Protocol.VIEW_RANK)) {
            throw new ParameterException(spec.commandLine(), "--clients " + clients
                    + " reads the compact rank view only");
        }
        if (!view.equals(Protocol.VIEW_RANK) && !view.equals(Protocol.VIEW_FULL)) {
            throw new ParameterException(spec.commandLine(), "--view must be rank or full, was " + view);
        }
        String problem = ServerUrl.problem(server);
        if (problem != null) {
            throw new ParameterException(spec.commandLine(), "--server " + problem);
        }
    }

    // ---------------------------------------------------------------- one round over HTTP

    /** Everything one benchmark run shares: the HTTP clients, the server, the auth header. */
    static final class Session implements AutoCloseable {
        private static final SecureRandom RANDOM = new SecureRandom();

        private final Supplier<HttpClient> newClient;
        /** The run's own requests (health, status polls, metrics, deletes), and every rank's with --clients shared. */
        private final HttpClient http;
        /** With --clients per-rank: each simulated rank's own client, kept across rounds like its connection. */
        private final Map<Integer, HttpClient> rankClients;
        private final ExecutorService threads;
        private final String base;
        private final String authorization;
        private final Backend backend;
        private final int joinWaitSeconds;
        private final Duration roundTimeout;
        private final boolean acceptGzip;
        private final boolean inflateAll;
        private final boolean rankView;
        /** Starts the client processes; null when every rank joins from this process. */
        private ForkStarter forkStarter;
        /** The client processes kept across rounds; null with --fresh, where each round starts its own. */
        private ForkedRanks forks;
        double holdSeconds;
        Long serverPid;
        /** --clients allsum: every rank's join through this process's one HttpAllsumClient, as a worker joins. */
        HttpAllsumClient allsum;

        Session(Supplier<HttpClient> newClient, boolean clientPerRank, ExecutorService threads, String base,
                String token, Backend backend, int joinWaitSeconds, Duration roundTimeout, boolean acceptGzip,
                boolean inflateAll, boolean rankView) {
            this.newClient = newClient;
            this.http = newClient.get();
            this.rankClients = clientPerRank ? new ConcurrentHashMap<>() : null;
            this.threads = threads;
            this.base = base;
            this.authorization = token == null || token.isBlank() ? null : "Bearer " + token;
            this.backend = backend;
            this.joinWaitSeconds = joinWaitSeconds;
            this.roundTimeout = roundTimeout;
            this.acceptGzip = acceptGzip;
            this.inflateAll = inflateAll;
            this.rankView = rankView;
        }

        /** Starts a round's client processes (and waits until each is ready). */
        interface ForkStarter {
            ForkedRanks start() throws IOException, InterruptedException;
        }

        /**
         * From now on, ranks 0..n-2 of each round join from client processes and this one posts the last: the
         * same processes for every round, or with {@code fresh} new ones per round.
         */
        void fork(ForkStarter starter, boolean fresh) throws IOException, InterruptedException {
            this.forkStarter = starter;
            this.forks = fresh ? null : starter.start();
        }

        Backend backend() {
            return backend;
        }

        private HttpClient clientOf(int rank) {
            return rankClients == null ? http : rankClients.computeIfAbsent(rank, r -> newClient.get());
        }

        @Override
        public void close() {
            if (allsum != null) {
                allsum.close();
            }
            if (rankClients != null) {
                rankClients.values().forEach(HttpClient::shutdownNow);
            }
            http.shutdownNow();
        }

        ExecutorService threads() {
            return threads;
        }

        void checkReachable() throws InterruptedException {
            try {
                HttpResponse<String> r = http.send(get("/actuator/health"), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() != 200) {
                    throw new IllegalStateException("GET " + base + "/actuator/health answered " + r.statusCode());
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot reach allsum server at " + base + ": " + e, e);
            }
        }

        RoundResult round(int n) throws Exception {
            if (forkStarter != null) {
                return forkedRound(n);
            }
            String group = "bench-" + n + "-" + HexFormat.of().formatHex(randomBytes(6));
            List<byte[]> bodies = joinBodies(group, n, backend, randomBytes(Protocol.UNIQUE_ID_BYTES));
            long deadline = System.nanoTime() + roundTimeout.toNanos();
            Delivered deliveredBefore = serverDelivered();
            int last = n - 1;
            List<Future<Answer>> answers = new ArrayList<>(n);
            long firstSent = System.nanoTime();
            try {
                for (int rank = 0; rank < last; rank++) {
                    byte[] body = bodies.get(rank);
                    int r = rank;
                    answers.add(threads.submit(() -> joinUntilComplete(group, r, body, deadline)));
                }
                awaitJoined(group, last, answers, deadline);
                long parkedRss = hold();
                JoinRequest lastRequest = requestFor(bodies.get(last)); // read before the clock: not the client's work
                long t0 = System.nanoTime();
                answers.add(threads.submit(() -> joinUntilComplete(group, last, bodies.get(last), lastRequest,
                        deadline)));
                long lastAnswer = 0;
                List<Answer> all = new ArrayList<>(n);
                for (Future<Answer> f : answers) {
                    Answer a = await(f, deadline, group);
                    all.add(a);
                    lastAnswer = Math.max(lastAnswer, a.receivedNanos());
                }
                checkAnswers(group, n, all);
                double serverDeliveryMillis = serverDeliveryMillisSince(deliveredBefore, deadline);
                return new RoundResult(n, lastAnswer - t0, lastAnswer - firstSent, serverDeliveryMillis, parkedRss,
                        all.getLast().receivedNanos() - t0);
            } finally {
                answers.forEach(f -> f.cancel(true));
                deleteGroup(group);
            }
        }

        /**
         * One round with ranks 0..n-2 in the client processes (rank r in process r mod procs) and the last rank
         * here. The processes report when each answer arrived on the same monotonic clock (one host), and a
         * fingerprint of what their ranks got, which must agree with the last rank's.
         */
        private RoundResult forkedRound(int n) throws Exception {
            String group = "bench-" + n + "-" + HexFormat.of().formatHex(randomBytes(6));
            byte[] id = randomBytes(Protocol.UNIQUE_ID_BYTES);
            byte[] lastBody = joinBodies(group, n, backend, id).get(n - 1);
            long deadline = System.nanoTime() + roundTimeout.toNanos();
            ForkedRanks forks = this.forks != null ? this.forks : forkStarter.start();
            Delivered deliveredBefore = serverDelivered();
            long firstSent = System.nanoTime();
            try {
                forks.startRound(group, n, Base64.getEncoder().encodeToString(id));
                awaitJoined(group, n - 1, forks::checkNoneFailed, deadline);
                long parkedRss = hold();
                JoinRequest lastRequest = requestFor(lastBody); // read before the clock: not the client's work
                long t0 = System.nanoTime();
                Answer own = joinUntilComplete(group, n - 1, lastBody, lastRequest, deadline);
                ForkedRanks.Done done = forks.awaitRound(deadline);
                long lastAnswer = Math.max(own.receivedNanos(), done.lastReceivedNanos());
                String fingerprint = checkAnswers(group, n, List.of(own));
                if (done.count() != n - 1 || !done.fingerprints().stream().allMatch(fingerprint::equals)) {
                    throw new IllegalStateException("group " + group + ": the client processes answered "
                            + done.count() + " of " + (n - 1) + " ranks with views " + done.fingerprints()
                            + ", the last rank got " + fingerprint);
                }
                double serverDeliveryMillis = serverDeliveryMillisSince(deliveredBefore, deadline);
                return new RoundResult(n, lastAnswer - t0, lastAnswer - firstSent, serverDeliveryMillis, parkedRss,
                        own.receivedNanos() - t0);
            } finally {
                deleteGroup(group);
                if (forks != this.forks) {
                    forks.stop();
                }
            }
        }

        /** Waits out --hold with every join parked; the server's RSS then (KiB), or -1 when not read. */
        private long hold() throws InterruptedException {
            if (holdSeconds > 0) {
                Thread.sleep(Duration.ofNanos((long) (holdSeconds * 1e9)));
            }
            return serverPid == null ? -1 : Machine.rssKiB(serverPid, "VmRSS").orElse(-1);
        }

        private void awaitJoined(String group, int expected, List<Future<Answer>> answers, long deadline)
                throws Exception {
            awaitJoined(group, expected, () -> {
                for (Future<Answer> f : answers) {
                    if (f.isDone()) {
                        f.get(); // an early failure surfaces here with its cause
                        throw new IllegalStateException("group " + group + ": a join completed before the last rank posted");
                    }
                }
            }, deadline);
        }

        /** A check run between polls; throws to end the round. */
        interface EarlyFailure {
            void check() throws Exception;
        }

        /** Polls the group's status until {@code expected} ranks have joined (the last rank has not posted yet). */
        private void awaitJoined(String group, int expected, EarlyFailure early, long deadline)
                throws Exception {
            if (expected == 0) {
                return;
            }
            // The status lists every member: at thousands of ranks, polling it every 2 ms would load the server.
            Duration pause = expected > 1024 ? POLL_INTERVAL.multipliedBy(10L * (expected / 1024)) : POLL_INTERVAL;
            while (true) {
                early.check();
                // The status lists every member and is built under the group's lock, which the joins need too: at
                // thousands of ranks, first wait on the server's count of parked joins (this run's only group).
                if (expected > 1024 && metric("allsum.rendezvous.joins.waiting", "VALUE").orElse(-1) < expected) {
                    if (System.nanoTime() > deadline) {
                        throw new TimeoutException("group " + group + ": " + expected + " ranks did not all join in time");
                    }
                    Thread.sleep(POLL_INTERVAL.multipliedBy(10));
                    continue;
                }
                HttpResponse<byte[]> r = http.send(get(Protocol.RENDEZVOUS_PATH + "/" + group),
                        HttpResponse.BodyHandlers.ofByteArray());
                if (r.statusCode() == 200) {
                    JsonNode status = AllsumJson.mapper().readTree(r.body());
                    if (status.path("joinedRanks").size() >= expected) {
                        return;
                    }
                } else if (r.statusCode() != 404) {
                    throw new IllegalStateException("GET status of " + group + " answered " + r.statusCode() + ": "
                            + new String(r.body(), StandardCharsets.UTF_8));
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("group " + group + ": " + expected + " ranks did not all join in time");
                }
                Thread.sleep(pause);
            }
        }

        /**
         * One simulated rank: posts its join and re-posts after a 202 or a refused/closed connection. Like
         * HttpAllsumClient it asks for gzip (unless --identity); a gzip answer counts as received once its bytes are
         * in, or once inflated with --inflate-all. Rank 0's answer is always kept, inflated, for checking.
         */
        Answer joinUntilComplete(String group, int rank, byte[] body, long deadline) throws Exception {
            return joinUntilComplete(group, rank, body, requestFor(body), deadline);
        }

        /** With --clients allsum, the join as the record a worker hands its client; null for the other clients. */
        JoinRequest requestFor(byte[] body) {
            return allsum == null ? null : AllsumJson.mapper().readValue(body, JoinRequest.class);
        }

        /**
         * @param request {@link #requestFor body}, read before the clock starts for the last rank: a worker builds
         *                its request as a record, and reading it from JSON in this process's cold code was counted
         */
        Answer joinUntilComplete(String group, int rank, byte[] body, JoinRequest request, long deadline)
                throws Exception {
            if (allsum != null) {
                RankView view = allsum.joinRank(request, Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
                // Kept as read: writing it back to JSON here cost each fresh client process a serializer's
                // construction right after its answer, while the others still read theirs.
                return new Answer(rank, System.nanoTime(), 0, 0, null, view);
            }
            HttpRequest.Builder builder = withAuth(HttpRequest.newBuilder(URI.create(base + Protocol.RENDEZVOUS_PATH
                    + "?" + Protocol.WAIT_PARAM + "=" + joinWaitSeconds
                    + (rankView ? "&" + Protocol.VIEW_PARAM + "=" + Protocol.VIEW_RANK : ""))))
                    // Generous: on a loaded machine thousands of connections can queue for many seconds to be served.
                    .timeout(Duration.ofSeconds(joinWaitSeconds).plus(roundTimeout))
                    .header("Content-Type", "application/json");
            if (acceptGzip) {
                builder.header("Accept-Encoding", GzipBodies.ACCEPT_ENCODING);
            }
            HttpRequest post = builder.POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
            HttpClient client = clientOf(rank);
            while (true) {
                try {
                    HttpResponse<Digest> r = client.send(post, info -> Digest.subscriber(
                            rank == 0 || rankView || forkStarter != null || info.statusCode() != 200
                                    || (inflateAll && GzipBodies.isGzip(info.headers()))));
                    Digest d = r.body();
                    if (r.statusCode() == 200) {
                        boolean gzip = GzipBodies.isGzip(r.headers());
                        if (gzip && inflateAll) {
                            byte[] json = GzipBodies.inflate(d.bytes());
                            long received = System.nanoTime();
                            CRC32 crc = new CRC32();
                            crc.update(json);
                            return new Answer(rank, received, crc.getValue(), json.length, rank == 0 ? json : null);
                        }
                        long received = System.nanoTime();
                        byte[] kept = d.bytes() != null && gzip ? GzipBodies.inflate(d.bytes()) : d.bytes();
                        return new Answer(rank, received, d.crc(), d.length(), kept);
                    }
                    if (r.statusCode() != 202 && r.statusCode() != 503) {
                        throw new IllegalStateException("join of rank " + rank + " to " + group + " answered "
                                + r.statusCode() + ": " + new String(d.bytes(), StandardCharsets.UTF_8));
                    }
                } catch (ConnectException | HttpConnectTimeoutException e) {
                    // accept backlog overflow, or a connect still queued after the client's connect timeout while
                    // thousands connect at once (2 cores, 16,384 ranks): try again, as HttpAllsumClient does
                } catch (IOException e) {
                    if (!String.valueOf(e.getMessage()).contains("no bytes")) {
                        throw new IOException("join of rank " + rank + " to " + group + " failed: " + e, e);
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException("join of rank " + rank + " to " + group + " did not complete in time");
                }
                Thread.sleep(RETRY_PAUSE);
            }
        }

        /**
         * Checks what the ranks got and returns its fingerprint, which every rank of the round must share. Full
         * view: every rank holds the same bytes, the first rank's parsed and checked. Rank view: each answer parsed,
         * naming its own rank, all with the same generation and id.
         */
        String checkAnswers(String group, int n, List<Answer> all) {
            if (all.isEmpty()) {
                return "";
            }
            if (rankView) {
                String fingerprint = null;
                for (Answer a : all) {
                    RankView view = a.view() != null ? a.view()
                            : AllsumJson.mapper().readValue(a.body(), RankView.class);
                    if (view.rank() != a.rank() || view.worldSize() != n) {
                        throw new IllegalStateException("group " + group + ": rank " + a.rank() + " got the answer"
                                + " of rank " + view.rank() + " of " + view.worldSize());
                    }
                    if (backend == Backend.NCCL && (view.uniqueId() == null
                            || Base64.getDecoder().decode(view.uniqueId()).length != Protocol.UNIQUE_ID_BYTES)) {
                        throw new IllegalStateException("group " + group + ": rank " + a.rank() + " lacks the id");
                    }
                    if (backend == Backend.RING && (view.previous() == null || view.next() == null)) {
                        throw new IllegalStateException("group " + group + ": rank " + a.rank()
                                + " lacks its ring neighbours");
                    }
                    String own = "g" + view.generation() + ":" + view.uniqueId();
                    if (fingerprint != null && !fingerprint.equals(own)) {
                        throw new IllegalStateException("group " + group + ": ranks disagree on the generation");
                    }
                    fingerprint = own;
                }
                CRC32 crc = new CRC32();
                crc.update(fingerprint.getBytes(StandardCharsets.UTF_8));
                return "rank:" + Long.toHexString(crc.getValue());
            }
            // A client process without rank 0 kept no body (only checksums): it checks that its ranks agree.
            Answer first = all.stream().filter(a -> a.body() != null).findFirst().orElse(null);
            if (first == null) {
                Answer any = all.getFirst();
                for (Answer a : all) {
                    if (a.crc() != any.crc() || a.length() != any.length()) {
                        throw new IllegalStateException("group " + group + ": ranks " + any.rank() + " and "
                                + a.rank() + " received different views");
                    }
                }
                return "full:" + Long.toHexString(any.crc()) + ":" + any.length();
            }
            GroupView view = AllsumJson.mapper().readValue(first.body(), GroupView.class);
            if (view.worldSize() != n || view.members() == null || view.members().size() != n) {
                throw new IllegalStateException("group " + group + ": view has " + (view.members() == null ? 0
                        : view.members().size()) + " members, expected " + n);
            }
            if (backend == Backend.NCCL && (view.uniqueId() == null
                    || Base64.getDecoder().decode(view.uniqueId()).length != Protocol.UNIQUE_ID_BYTES)) {
                throw new IllegalStateException("group " + group + ": view lacks rank 0's 128-byte unique id");
            }
            for (Answer a : all) {
                if (a.crc() != first.crc() || a.length() != first.length()) {
                    throw new IllegalStateException("group " + group + ": rank " + a.rank()
                            + " received a different view than rank " + first.rank());
                }
            }
            return "full:" + Long.toHexString(first.crc()) + ":" + first.length();
        }

        private void deleteGroup(String group) {
            try {
                HttpRequest request = withAuth(HttpRequest.newBuilder(URI.create(base + Protocol.RENDEZVOUS_PATH + "/"
                        + group))).timeout(Duration.ofSeconds(30)).DELETE().build();
                http.send(request, HttpResponse.BodyHandlers.discarding());
            } catch (IOException e) {
                System.err.println("# could not delete group " + group + ": " + e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** The server JVM's used memory (heap + non-heap) from its actuator metrics, when that endpoint is open. */
        OptionalLong serverMemoryUsedBytes() {
            OptionalDouble used = metric("jvm.memory.used", "VALUE");
            return used.isPresent() ? OptionalLong.of((long) used.getAsDouble()) : OptionalLong.empty();
        }

        /** The server's timer "generation complete until the last waiting rank was answered": count and total. */
        record Delivered(double count, double totalSeconds) {
        }

        private Delivered serverDelivered() {
            OptionalDouble count = metric("allsum.rendezvous.delivery", "COUNT");
            OptionalDouble total = metric("allsum.rendezvous.delivery", "TOTAL_TIME");
            return count.isPresent() && total.isPresent() ? new Delivered(count.getAsDouble(), total.getAsDouble()) : null;
        }

        /**
         * The server's own delivery time for this round, next to the client's figure it shows how much of that is
         * the client's. The server records it after the last answer went out, so wait (briefly) for that record.
         */
        private double serverDeliveryMillisSince(Delivered before, long deadline) throws InterruptedException {
            if (before == null) {
                return Double.NaN;
            }
            long giveUp = Math.min(deadline, System.nanoTime() + Duration.ofSeconds(2).toNanos());
            while (true) {
                Delivered now = serverDelivered();
                if (now != null && now.count() >= before.count() + 1) {
                    return (now.totalSeconds() - before.totalSeconds()) * 1e3;
                }
                if (now == null || System.nanoTime() > giveUp) {
                    return Double.NaN;
                }
                Thread.sleep(POLL_INTERVAL);
            }
        }

        private OptionalDouble metric(String name, String statistic) {
            try {
                HttpResponse<byte[]> r = http.send(get("/actuator/metrics/" + name),
                        HttpResponse.BodyHandlers.ofByteArray());
                return r.statusCode() == 200
                        ? metricStatistic(new String(r.body(), StandardCharsets.UTF_8), statistic)
                        : OptionalDouble.empty();
            } catch (IOException | RuntimeException e) {
                return OptionalDouble.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return OptionalDouble.empty();
            }
        }

        private HttpRequest get(String path) {
            return withAuth(HttpRequest.newBuilder(URI.create(base + path))).timeout(Duration.ofSeconds(30)).GET()
                    .build();
        }

        private HttpRequest.Builder withAuth(HttpRequest.Builder builder) {
            builder.header("User-Agent", "allsum-bench/1");
            return authorization == null ? builder : builder.header("Authorization", authorization);
        }

        private static Answer await(Future<Answer> f, long deadline, String group) throws Exception {
            try {
                return f.get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            } catch (TimeoutException e) {
                throw new TimeoutException("group " + group + ": not every rank got the view before the round deadline");
            }
        }

        private static byte[] randomBytes(int n) {
            byte[] b = new byte[n];
            RANDOM.nextBytes(b);
            return b;
        }
    }

    /**
     * A response body as it streams in: its CRC-32 and length, and the bytes only when asked. Thousands of ranks
     * each receiving an N-member view would otherwise make the client copy and collect gigabytes per round and
     * become the bottleneck it is meant to measure.
     */
    record Digest(long crc, long length, byte[] bytes) {

        static HttpResponse.BodySubscriber<Digest> subscriber(boolean keepBytes) {
            return HttpResponse.BodySubscribers.fromSubscriber(new Collector(keepBytes), Collector::digest);
        }

        private static final class Collector implements Flow.Subscriber<List<ByteBuffer>> {
            private final CRC32 crc = new CRC32();
            private final ByteArrayOutputStream kept;
            private long length;

            Collector(boolean keepBytes) {
                kept = keepBytes ? new ByteArrayOutputStream() : null;
            }

            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(List<ByteBuffer> buffers) {
                for (ByteBuffer buffer : buffers) {
                    length += buffer.remaining();
                    if (kept != null) {
                        byte[] copy = new byte[buffer.remaining()];
                        buffer.duplicate().get(copy);
                        kept.writeBytes(copy);
                    }
                    crc.update(buffer);
                }
            }

            @Override
            public void onError(Throwable error) {
                // the HTTP client reports the failure to the caller of send()
            }

            @Override
            public void onComplete() {
                // digest() reads the totals once the body is complete
            }

            Digest digest() {
                return new Digest(crc.getValue(), length, kept == null ? null : kept.toByteArray());
            }
        }
    }

    /**
     * One rank's answer: when it arrived, and a checksum of the view (only rank 0 keeps the bytes).
     *
     * @param view the rank view as HttpAllsumClient returned it (--clients allsum), else null
     */
    record Answer(int rank, long receivedNanos, long crc, long length, byte[] body, RankView view) {
        Answer(int rank, long receivedNanos, long crc, long length, byte[] body) {
            this(rank, receivedNanos, crc, length, body, null);
        }
    }

    /** The join bodies of all ranks, serialized before the clock starts; rank 0 carries the id for nccl. */
    static List<byte[]> joinBodies(String group, int n, Backend backend, byte[] uniqueId) {
        String id = Base64.getEncoder().encodeToString(uniqueId);
        String incarnation = HexFormat.of().formatHex(Arrays.copyOf(uniqueId, 4));
        List<byte[]> bodies = new ArrayList<>(n);
        for (int rank = 0; rank < n; rank++) {
            JoinRequest request = new JoinRequest(group, rank, n, "bench-" + incarnation + "-r" + rank, backend,
                    backend == Backend.NCCL && rank == 0 ? id : null,
                    backend == Backend.RING ? "127.0.0.1:" + (20000 + rank % 40000) : null, "bench", null);
            bodies.add(AllsumJson.mapper().writeValueAsBytes(request));
        }
        return bodies;
    }

    // ---------------------------------------------------------------- pure parts: statistics, table, machine

    /**
     * One measured round: last join to the last rank's answer, and the whole round from the first join sent.
     *
     * @param parkedRssKiB   the server's RSS with every join but the last parked; -1 when not read
     * @param ownAnswerNanos last join until the last rank holds its own answer, which the server writes first: its
     *                       join's way in, the completion, one write and one client wake-up; -1 when not measured
     */
    record RoundResult(int ranks, long lastJoinToAllNanos, long roundNanos, double serverDeliveryMillis,
                       long parkedRssKiB, long ownAnswerNanos) {
        RoundResult(int ranks, long lastJoinToAllNanos, long roundNanos, double serverDeliveryMillis) {
            this(ranks, lastJoinToAllNanos, roundNanos, serverDeliveryMillis, -1, -1);
        }

        double joinsPerSecond() {
            return ranks / (roundNanos / 1e9);
        }

        String describe() {
            return String.format(Locale.ROOT, "last join -> all %.2f ms (server delivery %.2f ms%s), round %.1f ms, "
                    + "%.0f joins/s%s", lastJoinToAllNanos / 1e6, serverDeliveryMillis, ownAnswerNanos < 0 ? ""
                            : String.format(Locale.ROOT, ", last rank's own answer %.2f ms", ownAnswerNanos / 1e6),
                    roundNanos / 1e6,
                    joinsPerSecond(), parkedRssKiB < 0 ? "" : String.format(Locale.ROOT, ", server rss with %d parked "
                            + "%.1f MiB", ranks - 1, parkedRssKiB / 1024.0));
        }
    }

    /** One line of the table: a world size over its rounds. */
    record Row(int ranks, int rounds, double medianMillis, double maxMillis, double medianServerDeliveryMillis,
               double medianJoinsPerSecond, OptionalLong serverMemoryUsedBytes, OptionalLong rssKiB, OptionalLong hwmKiB,
               OptionalLong parkedRssKiB) {

        Row(int ranks, int rounds, double medianMillis, double maxMillis, double medianServerDeliveryMillis,
            double medianJoinsPerSecond, OptionalLong serverMemoryUsedBytes, OptionalLong rssKiB, OptionalLong hwmKiB) {
            this(ranks, rounds, medianMillis, maxMillis, medianServerDeliveryMillis, medianJoinsPerSecond,
                    serverMemoryUsedBytes, rssKiB, hwmKiB, OptionalLong.empty());
        }

        static Row of(int ranks, List<RoundResult> results, OptionalLong memoryUsed, OptionalLong rss, OptionalLong hwm) {
            double[] millis = results.stream().mapToDouble(r -> r.lastJoinToAllNanos() / 1e6).toArray();
            double[] joins = results.stream().mapToDouble(RoundResult::joinsPerSecond).toArray();
            double[] delivery = results.stream().mapToDouble(RoundResult::serverDeliveryMillis)
                    .filter(d -> !Double.isNaN(d)).toArray();
            return new Row(ranks, results.size(), median(millis).orElse(Double.NaN),
                    Arrays.stream(millis).max().orElse(Double.NaN), median(delivery).orElse(Double.NaN),
                    median(joins).orElse(Double.NaN), memoryUsed, rss, hwm,
                    results.stream().mapToLong(RoundResult::parkedRssKiB).filter(k -> k >= 0).max());
        }
    }

    static OptionalDouble median(double[] values) {
        if (values.length == 0) {
            return OptionalDouble.empty();
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int mid = sorted.length / 2;
        return OptionalDouble.of(sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2);
    }

    static String formatTable(List<Row> rows) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%7s %7s %12s %12s %16s %14s %15s %14s %14s %16s%n", "ranks",
                "rounds", "median (ms)", "max (ms)", "server med (ms)", "joins/s (med)", "jvm used (MiB)", "rss (MiB)",
                "peak rss (MiB)", "parked rss (MiB)"));
        for (Row r : rows) {
            out.append(String.format(Locale.ROOT, "%7d %7d %12.2f %12.2f %16s %14.0f %15s %14s %14s %16s%n", r.ranks(),
                    r.rounds(), r.medianMillis(), r.maxMillis(), Double.isNaN(r.medianServerDeliveryMillis()) ? "n/a"
                            : String.format(Locale.ROOT, "%.2f", r.medianServerDeliveryMillis()),
                    r.medianJoinsPerSecond(),
                    mib(r.serverMemoryUsedBytes(), 1 << 20), mib(r.rssKiB(), 1 << 10), mib(r.hwmKiB(), 1 << 10),
                    mib(r.parkedRssKiB(), 1 << 10)));
        }
        out.append("# median/max: time from the last rank's join until every rank holds the group view (client clock);\n"
                + "# server med: the server's allsum.rendezvous.delivery for the same rounds (completion to last answer)\n");
        return out.toString();
    }

    private static String mib(OptionalLong value, long unitsPerMiB) {
        return value.isPresent() ? String.format(Locale.ROOT, "%.1f", value.getAsLong() / (double) unitsPerMiB) : "n/a";
    }

    /** One statistic of an actuator metric, e.g. VALUE of {@code jvm.memory.used} (all areas summed by Boot). */
    static OptionalDouble metricStatistic(String json, String statistic) {
        JsonNode root = AllsumJson.mapper().readTree(json);
        for (JsonNode m : root.path("measurements")) {
            if (statistic.equals(m.path("statistic").asString()) && m.path("value").isNumber()) {
                return OptionalDouble.of(m.path("value").asDouble());
            }
        }
        return OptionalDouble.empty();
    }

    /** Reads facts about this machine and the server process from /proc. */
    static final class Machine {
        private Machine() {
        }

        static Optional<String> cpuModel() {
            try {
                return cpuModel(Files.readString(Path.of("/proc/cpuinfo")));
            } catch (IOException e) {
                return Optional.empty();
            }
        }

        static Optional<String> cpuModel(String cpuinfo) {
            return cpuinfo.lines().filter(l -> l.startsWith("model name")).findFirst()
                    .map(l -> l.substring(l.indexOf(':') + 1).strip());
        }

        static Optional<String> loadAverage() {
            try {
                String[] parts = Files.readString(Path.of("/proc/loadavg")).strip().split("\\s+");
                return Optional.of(parts[0] + " " + parts[1] + " " + parts[2]);
            } catch (IOException | RuntimeException e) {
                return Optional.empty();
            }
        }

        static OptionalLong rssKiB(long pid, String field) {
            try {
                return statusField(Files.readString(Path.of("/proc", Long.toString(pid), "status")), field);
            } catch (IOException e) {
                return OptionalLong.empty();
            }
        }

        /** A {@code kB} field of /proc/PID/status, e.g. {@code VmRSS:  123456 kB}. */
        static OptionalLong statusField(String status, String field) {
            return status.lines().filter(l -> l.startsWith(field + ":")).findFirst()
                    .map(l -> l.substring(field.length() + 1).strip().split("\\s+")[0])
                    .map(v -> OptionalLong.of(Long.parseLong(v))).orElse(OptionalLong.empty());
        }
    }
}
