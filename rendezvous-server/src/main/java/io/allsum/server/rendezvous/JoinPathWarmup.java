package io.allsum.server.rendezvous;

import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.model.Backend;
import io.allsum.model.Protocol;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.RankView;
import io.allsum.model.security.BearerToken;
import io.allsum.server.security.SecurityProperties;
import io.allsum.server.web.ProblemWriter;
import io.allsum.server.web.ServerEpoch;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.VirtualThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLogger;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Sends joins through a private copy of the join path once the server is up, so that the first real rendezvous runs
 * compiled code. A generation completes once per job launch, so a long-running server's join path would otherwise
 * still be interpreted (and compiling) at the rendezvous that users wait for: on 2 cores, 64 ranks' first
 * rendezvous took 45 ms on a fresh server against 5-8 ms on one that had served thousands of joins
 * (docs/benchmarks.md, "The server's first rendezvous").
 *
 * <p>Nothing of it is visible: the joins go to a second Jetty server on an ephemeral loopback port, with the same
 * classes, connection settings and buffer pool as the real one, into a private {@link RendezvousRegistry} with its
 * own meters, no event listeners and no logs, through the real client ({@link HttpAllsumClient}, as workers join,
 * with the server's token when it has one). The JIT compiles per method, not per instance, so the real server's join
 * path is what gets compiled; the private parts are of the same classes where a join's answer calls them (the
 * meter registry's kind, the token check), so that the first real join does not meet code compiled for other
 * classes and fall back to the interpreter. It runs on
 * one background thread after start-up and never delays readiness; {@code allsum.rendezvous.warm-up-joins=0} turns
 * it off (the one-job local server of {@code ./allsum} does).
 */
@Component
class JoinPathWarmup implements ApplicationListener<ApplicationReadyEvent>, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(JoinPathWarmup.class);
    /**
     * Ranks per warm-up group: two answering threads ({@link GroupExecutor.Effects#ANSWER_CHUNK}), as at scale; fewer
     * when {@code allsum.rendezvous.max-world-size} is smaller.
     */
    static final int WORLD_SIZE = 2 * GroupExecutor.Effects.ANSWER_CHUNK;
    /** A round that takes longer than this means something is wrong: the warm-up stops (the server is unaffected). */
    private static final Duration ROUND_DEADLINE = Duration.ofSeconds(30);

    private final RendezvousProperties properties;
    private final RendezvousScheduler scheduler;
    private final ServerEpoch epoch;
    private final JoinResponses answers;
    private final ProblemWriter problems;
    private final JsonMapper json;
    private final MeterRegistry meterRegistry;
    private final String token;
    private volatile Thread thread;
    private volatile boolean stopping;
    private volatile Result result;

    /** What a finished warm-up did. */
    record Result(int joins, Duration took, String failure) {
    }

    JoinPathWarmup(RendezvousProperties properties, RendezvousScheduler scheduler, ServerEpoch epoch,
                   JoinResponses answers, ProblemWriter problems, JsonMapper json, MeterRegistry meterRegistry,
                   SecurityProperties security) {
        this.properties = properties;
        this.scheduler = scheduler;
        this.epoch = epoch;
        this.answers = answers;
        this.problems = problems;
        this.json = json;
        this.meterRegistry = meterRegistry;
        this.token = security.tokenConfigured() ? security.token() : null;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        if (properties.warmUpJoins() == 0 || thread != null) {
            return;
        }
        if (!(event.getApplicationContext() instanceof WebServerApplicationContext web)
                || !(web.getWebServer() instanceof JettyWebServer jetty)) {
            return; // no Jetty server (a test's mock environment): nothing to warm
        }
        ServerConnector main = null;
        for (var connector : jetty.getServer().getConnectors()) {
            if (connector instanceof ServerConnector server) {
                main = server;
                break;
            }
        }
        if (main == null) {
            return;
        }
        ServerConnector template = main;
        thread = Thread.ofPlatform().daemon().name("join-path-warm-up").start(() -> result = run(template));
    }

    /** The finished warm-up, or null while it runs (or when it never ran). */
    Result result() {
        return result;
    }

    @Override
    public void destroy() throws InterruptedException {
        stopping = true;
        Thread running = thread;
        if (running != null) {
            running.interrupt();
            running.join(Duration.ofSeconds(5));
        }
    }

    private Result run(ServerConnector template) {
        long started = System.nanoTime();
        int joins = 0;
        String failure = null;
        Server server = new Server(new VirtualThreadPool());
        try {
            RendezvousMeters meters = privateMeters();
            RendezvousRegistry registry = privateRegistry(meters);
            server.addConnector(loopbackConnector(server, template));
            JoinHandler handler = new JoinHandler("", registry, properties, answers, problems, meters, json,
                    token == null ? null : BearerToken.of(token), epoch.id());
            server.setHandler(handler); // nothing behind it: Jetty answers 404 to anything but a join
            server.start();
            int port = ((ServerConnector) server.getConnectors()[0]).getLocalPort();
            try (AllsumClient client = HttpAllsumClient.builder("http://127.0.0.1:" + port).token(token).build();
                 // Virtual, like the server's own request threads: no 32 platform threads made for one burst.
                 ExecutorService ranks = Executors.newThreadPerTaskExecutor(
                         Thread.ofVirtual().name("join-path-warm-up-rank-", 0).factory())) {
                byte[] id = new byte[Protocol.UNIQUE_ID_BYTES];
                new SecureRandom().nextBytes(id);
                String uniqueId = Base64.getEncoder().encodeToString(id);
                int worldSize = Math.min(WORLD_SIZE, properties.maxWorldSize());
                for (int round = 0; joins < properties.warmUpJoins() && !stopping; round++) {
                    String group = "warm-up-" + round;
                    List<Future<RankView>> views = new ArrayList<>(worldSize);
                    for (int rank = 0; rank < worldSize; rank++) {
                        JoinRequest join = new JoinRequest(group, rank, worldSize, "warm-up-r" + rank, Backend.NCCL,
                                rank == 0 ? uniqueId : null, null, null, null);
                        views.add(ranks.submit(() -> client.joinRank(join, ROUND_DEADLINE)));
                    }
                    for (Future<RankView> view : views) {
                        view.get(ROUND_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
                    }
                    registry.close(group);
                    otherRequests(client, group);
                    joins += worldSize;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = "interrupted";
        } catch (Exception e) {
            failure = e.toString();
        } finally {
            try {
                server.stop();
            } catch (Exception e) {
                log.debug("the warm-up's server did not stop cleanly", e);
            }
        }
        Duration took = Duration.ofNanos(System.nanoTime() - started);
        if (failure == null && !stopping) {
            log.info("join path warmed: {} joins through a private loopback server in {} ms "
                    + "(allsum.rendezvous.warm-up-joins; 0 turns this off)", joins, took.toMillis());
        } else if (!stopping) {
            log.warn("join path warm-up stopped after {} joins: {}; the server serves as usual", joins, failure);
        }
        return new Result(joins, took, failure);
    }

    /**
     * A request of another shape (a GET without a body, a problem answer) now and then, as a server also gets them
     * (health checks, status, heartbeats). Compiled on joins alone, Jetty's parser and generator meet the first
     * such request with an uncommon trap and fall back to the interpreter, just when the first workers join.
     */
    private static void otherRequests(AllsumClient client, String group) {
        try {
            client.status(group); // 404 from the private server: only joins are served there
        } catch (RuntimeException expected) {
            // the answer's way through the client and the server is the point, not its content
        }
    }

    /** A registry of its own: own meters, no listeners, no logs; the real registry never sees these groups. */
    private RendezvousRegistry privateRegistry(RendezvousMeters meters) {
        GroupExecutor executor = new GroupExecutor(meters, event -> {
        }, scheduler, properties, epoch, NOPLogger.NOP_LOGGER);
        return new RendezvousRegistry(properties, executor, NOPLogger.NOP_LOGGER);
    }

    /** Meters nobody scrapes, in a registry of the same kind as the server's (its counters are what joins touch). */
    private RendezvousMeters privateMeters() {
        MeterRegistry registry = meterRegistry instanceof PrometheusMeterRegistry
                ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : new SimpleMeterRegistry();
        return new RendezvousMeters(registry);
    }

    /** Loopback only, an ephemeral port, and the real connector's HTTP settings and buffer pool (the same code). */
    private static ServerConnector loopbackConnector(Server server, ServerConnector template) {
        HttpConnectionFactory real = template.getConnectionFactory(HttpConnectionFactory.class);
        HttpConnectionFactory http = new HttpConnectionFactory(real.getHttpConfiguration());
        http.setInputBufferSize(real.getInputBufferSize());
        ServerConnector connector = new ServerConnector(server, null, null, template.getByteBufferPool(), 1, 1, http);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        return connector;
    }
}
