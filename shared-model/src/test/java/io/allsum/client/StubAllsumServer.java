package io.allsum.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import javax.net.ssl.SSLContext;

/**
 * A scripted HTTP server on loopback for client tests (shared-model cannot depend on the real server): answers
 * the queued replies in order, then the fallback, and records every request it received.
 */
final class StubAllsumServer implements AutoCloseable {

    record Recorded(String method, URI uri, Map<String, List<String>> headers, String body, long arrivedNanos) {
        String header(String name) {
            return headers.entrySet().stream().filter(e -> e.getKey().equalsIgnoreCase(name))
                    .map(e -> e.getValue().getFirst()).findFirst().orElse(null);
        }
    }

    /** @param raw the exact body bytes when they are not text (a gzip body); null to send {@code body} */
    record Reply(int status, Map<String, String> headers, String body, byte[] raw) {
        Reply(int status, Map<String, String> headers, String body) {
            this(status, headers, body, null);
        }

        static Reply json(int status, String body) {
            return new Reply(status, Map.of("Content-Type", "application/json"), body);
        }

        static Reply problem(int status, String title, String detail) {
            return new Reply(status, Map.of("Content-Type", "application/problem+json"),
                    "{\"type\":\"about:blank\",\"status\":" + status + ",\"title\":\"" + title + "\",\"detail\":\""
                            + detail + "\"}");
        }

        /** The JSON gzipped, with {@code Content-Encoding: gzip}, as the server answers a join that asked for it. */
        static Reply gzipJson(int status, String json) {
            var out = new java.io.ByteArrayOutputStream();
            try (var gzip = new java.util.zip.GZIPOutputStream(out)) {
                gzip.write(json.getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return new Reply(status, Map.of("Content-Type", "application/json", "Content-Encoding", "gzip"), json,
                    out.toByteArray());
        }

        static Reply empty(int status) {
            return new Reply(status, Map.of(), "");
        }

        Reply withHeader(String name, String value) {
            var copy = new java.util.HashMap<>(headers);
            copy.put(name, value);
            return new Reply(status, Map.copyOf(copy), body, raw);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Deque<Function<Recorded, Reply>> script = new ArrayDeque<>();
    private final List<Recorded> requests = new CopyOnWriteArrayList<>();
    private volatile Function<Recorded, Reply> fallback = r -> Reply.problem(500, "Unscripted", "no reply scripted");

    private StubAllsumServer(HttpServer server) {
        this.server = server;
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    static StubAllsumServer start() throws IOException {
        return startOn(0);
    }

    static StubAllsumServer startOn(int port) throws IOException {
        return new StubAllsumServer(HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 0));
    }

    /** Over https with the certificate of {@code tls}. */
    static StubAllsumServer startHttps(SSLContext tls) throws IOException {
        HttpsServer https = HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        https.setHttpsConfigurator(new HttpsConfigurator(tls));
        return new StubAllsumServer(https);
    }

    URI uri() {
        return URI.create((server instanceof HttpsServer ? "https" : "http") + "://127.0.0.1:"
                + server.getAddress().getPort());
    }

    synchronized StubAllsumServer then(Reply reply) {
        script.addLast(r -> reply);
        return this;
    }

    synchronized StubAllsumServer then(Function<Recorded, Reply> responder) {
        script.addLast(responder);
        return this;
    }

    StubAllsumServer otherwise(Function<Recorded, Reply> responder) {
        fallback = responder;
        return this;
    }

    List<Recorded> requests() {
        return List.copyOf(requests);
    }

    private synchronized Function<Recorded, Reply> next() {
        Function<Recorded, Reply> scripted = script.pollFirst();
        return scripted != null ? scripted : fallback;
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange; InputStream in = exchange.getRequestBody()) {
            String body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            Recorded recorded = new Recorded(exchange.getRequestMethod(), exchange.getRequestURI(),
                    Map.copyOf(exchange.getRequestHeaders()), body, System.nanoTime());
            requests.add(recorded);
            Reply reply = next().apply(recorded);
            reply.headers().forEach((k, v) -> exchange.getResponseHeaders().add(k, v));
            byte[] bytes = reply.raw() != null ? reply.raw() : reply.body().getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(reply.status(), bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                exchange.getResponseBody().write(bytes);
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
