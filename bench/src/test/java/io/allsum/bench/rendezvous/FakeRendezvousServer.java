package io.allsum.bench.rendezvous;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.allsum.client.AllsumJson;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.JoinRequest;
import io.allsum.model.rendezvous.Member;
import io.allsum.model.rendezvous.RankView;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A minimal in-test rendezvous (the real server is another module): joins wait until the group is full, then
 * every rank gets the same view; GET shows joinedRanks; DELETE removes the group. It checks the bearer token.
 */
final class FakeRendezvousServer implements AutoCloseable {

    private record Group(int worldSize, Map<Integer, JoinRequest> joined, CompletableFuture<byte[]> view) {
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, Group> groups = new ConcurrentHashMap<>();
    private final String token;
    final AtomicInteger deletes = new AtomicInteger();
    final AtomicInteger viewsSent = new AtomicInteger();
    /** The client address and port of every join: one per kept-alive connection. */
    final Set<String> joinConnections = ConcurrentHashMap.newKeySet();

    FakeRendezvousServer(String token) throws IOException {
        this.token = token;
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1024);
        server.setExecutor(executor);
        server.createContext("/", this::handle);
        server.start();
    }

    URI uri() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    int activeGroups() {
        return groups.size();
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            byte[] body = ex.getRequestBody().readAllBytes();
            String path = ex.getRequestURI().getPath();
            String method = ex.getRequestMethod();
            if (path.equals("/actuator/health")) {
                reply(ex, 200, "{\"status\":\"UP\"}".getBytes());
            } else if (!("Bearer " + token).equals(ex.getRequestHeaders().getFirst("Authorization"))) {
                ex.getResponseHeaders().add("WWW-Authenticate", "Bearer");
                reply(ex, 401, "{\"status\":401,\"title\":\"Unauthorized\",\"detail\":\"bad token\"}".getBytes());
            } else if (path.equals("/rendezvous") && method.equals("POST")) {
                join(ex, AllsumJson.mapper().readValue(body, JoinRequest.class),
                        String.valueOf(ex.getRequestURI().getQuery()).contains("view=rank"));
            } else if (path.startsWith("/rendezvous/") && method.equals("GET")) {
                Group g = groups.get(path.substring("/rendezvous/".length()));
                if (g == null) {
                    reply(ex, 404, "{\"status\":404,\"title\":\"Not Found\"}".getBytes());
                } else {
                    reply(ex, 200, AllsumJson.mapper().writeValueAsBytes(
                            Map.of("joinedRanks", List.copyOf(g.joined().keySet()))));
                }
            } else if (path.startsWith("/rendezvous/") && method.equals("DELETE")) {
                groups.remove(path.substring("/rendezvous/".length()));
                deletes.incrementAndGet();
                reply(ex, 204, new byte[0]);
            } else {
                reply(ex, 404, "{\"status\":404,\"title\":\"Not Found\"}".getBytes());
            }
        }
    }

    private void join(HttpExchange ex, JoinRequest request, boolean rankView) throws IOException {
        Group g = groups.computeIfAbsent(request.group(), k -> new Group(request.worldSize(),
                new ConcurrentSkipListMap<>(), new CompletableFuture<>()));
        g.joined().put(request.rank(), request);
        joinConnections.add(String.valueOf(ex.getRemoteAddress()));
        if (g.joined().size() == g.worldSize()) {
            List<Member> members = g.joined().values().stream()
                    .map(j -> new Member(j.rank(), j.instanceId(), j.endpoint(), j.host(), j.device())).toList();
            g.view().complete(AllsumJson.mapper().writeValueAsBytes(new GroupView(request.group(), 1,
                    g.worldSize(), request.backend(), g.joined().get(0).uniqueId(), members)));
        }
        try {
            byte[] view = g.view().get(20, TimeUnit.SECONDS);
            viewsSent.incrementAndGet();
            if (rankView) {
                GroupView full = AllsumJson.mapper().readValue(view, GroupView.class);
                view = AllsumJson.mapper().writeValueAsBytes(new RankView(full.group(), full.generation(),
                        full.worldSize(), full.backend(), full.uniqueId(), request.rank(), null, null, "t-1", null));
            }
            reply(ex, 200, view);
        } catch (TimeoutException e) {
            reply(ex, 202, "{\"group\":\"x\",\"generation\":1}".getBytes());
        } catch (Exception e) {
            reply(ex, 500, e.toString().getBytes());
        }
    }

    private static void reply(HttpExchange ex, int status, byte[] body) throws IOException {
        ex.getResponseHeaders().add("Content-Type", "application/json");
        ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
        if (body.length > 0) {
            ex.getResponseBody().write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
