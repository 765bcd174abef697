package io.allsum.client;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ProtocolException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The long-polls' transport against a scripted server on a real socket. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BlockingHttpTest {

    private static final List<String> HEADERS = List.of("Accept", "application/json");

    private ScriptedServer server;
    private BlockingHttp http;

    @AfterEach
    void stop() throws Exception {
        if (http != null) {
            http.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void readsAnswersWithALengthChunkedAndUntilTheConnectionCloses() throws Exception {
        server = new ScriptedServer(request -> switch (request.split(" ")[1]) {
            case "/length" -> "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Allsum-Epoch: e1\r\n\r\nhello";
            case "/chunked" -> "HTTP/1.1 202 Accepted\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
            default -> "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nto the end";
        });
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        BlockingHttp.Answer length = http.exchange("GET", "/length", HEADERS, new byte[0], Duration.ofSeconds(5));
        BlockingHttp.Answer chunked = http.exchange("GET", "/chunked", HEADERS, new byte[0], Duration.ofSeconds(5));
        BlockingHttp.Answer closed = http.exchange("GET", "/close", HEADERS, new byte[0], Duration.ofSeconds(5));

        assertThat(length.status()).isEqualTo(200);
        assertThat(new String(length.body(), StandardCharsets.UTF_8)).isEqualTo("hello");
        assertThat(length.headers().firstValue("x-allsum-epoch")).contains("e1");
        assertThat(chunked.status()).isEqualTo(202);
        assertThat(new String(chunked.body(), StandardCharsets.UTF_8)).isEqualTo("abcde");
        assertThat(new String(closed.body(), StandardCharsets.UTF_8)).isEqualTo("to the end");
    }

    @Test
    void readsAnAnswerFromBytesAsFromAConnection() throws Exception {
        BlockingHttp.Answer answer = BlockingHttp.read("POST", ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                + "Allsum-Server-Epoch: e1\r\nContent-Length: 2\r\n\r\n{}").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.headers().firstValue("allsum-server-epoch")).contains("e1");
        assertThat(answer.body()).asString(StandardCharsets.UTF_8).isEqualTo("{}");
        assertThatThrownBy(() -> BlockingHttp.read("GET", "HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nshort"
                .getBytes(StandardCharsets.ISO_8859_1))).isInstanceOf(java.io.EOFException.class);
    }

    @Test
    void sendsTheRequestLineHeadersAndBodyAndKeepsTheConnectionForTheNextCall() throws Exception {
        server = new ScriptedServer(request -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        http.exchange("POST", "/rendezvous?wait=5", List.of("Authorization", "Bearer t"),
                "{\"rank\":1}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));
        http.exchange("POST", "/rendezvous?wait=5", List.of("Authorization", "Bearer t"),
                "{\"rank\":1}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5));

        assertThat(server.connections.get()).isEqualTo(1);
        assertThat(server.lastRequest).startsWith("POST /rendezvous?wait=5 HTTP/1.1\r\n")
                .contains("Host: 127.0.0.1:" + server.port() + "\r\n", "Authorization: Bearer t\r\n",
                        "Content-Length: 10\r\n")
                .endsWith("\r\n\r\n{\"rank\":1}");
    }

    @Test
    void aKeptConnectionTheServerClosedIsReplacedAtOnce() throws Exception {
        // The server answers once per connection and then closes it without saying so.
        server = new ScriptedServer(request -> "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", true);
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        http.exchange("GET", "/a", HEADERS, new byte[0], Duration.ofSeconds(5));
        Thread.sleep(100); // the server has closed the kept connection by now
        BlockingHttp.Answer second = http.exchange("GET", "/b", HEADERS, new byte[0], Duration.ofSeconds(5));

        assertThat(second.status()).isEqualTo(200);
        assertThat(server.connections.get()).isEqualTo(2);
    }

    @Test
    void readsAnAnswerThatArrivesAFewBytesAtATime() throws Exception {
        String head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-Long: " + "v".repeat(9000)
                + "\r\nTransfer-Encoding: chunked\r\n\r\n";
        server = new ScriptedServer(request -> head + "4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n");
        server.trickle = true;
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        BlockingHttp.Answer answer = http.exchange("GET", "/x", HEADERS, new byte[0], Duration.ofSeconds(20));

        assertThat(answer.headers().firstValue("X-Long")).hasValueSatisfying(v -> assertThat(v).hasSize(9000));
        assertThat(new String(answer.body(), StandardCharsets.UTF_8)).isEqualTo("{\"a\":1}");
    }

    @Test
    void aWaitingCallEndsWhenItsThreadIsInterrupted() throws Exception {
        server = new ScriptedServer(request -> null); // never answers
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));
        CompletableFuture<Throwable> outcome = new CompletableFuture<>();
        Thread caller = Thread.ofPlatform().start(() -> {
            try {
                http.exchange("GET", "/next", HEADERS, new byte[0], Duration.ofSeconds(20));
                outcome.complete(null);
            } catch (Throwable e) {
                outcome.complete(e);
            }
        });
        server.awaitRequests(1);

        long interrupted = System.nanoTime();
        caller.interrupt();

        assertThat(outcome.get(5, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - interrupted)).isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void closeEndsAWaitingCall() throws Exception {
        server = new ScriptedServer(request -> null);
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));
        CompletableFuture<Void> call = CompletableFuture.runAsync(() -> {
            try {
                http.exchange("GET", "/next", HEADERS, new byte[0], Duration.ofSeconds(20));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        server.awaitRequests(1);

        http.close();

        assertThatThrownBy(() -> call.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().cause().isInstanceOf(IOException.class);
    }

    @Test
    void noAnswerWithinTheTimeoutIsAnHttpTimeout() throws Exception {
        server = new ScriptedServer(request -> null);
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        assertThatThrownBy(() -> http.exchange("GET", "/next", HEADERS, new byte[0], Duration.ofMillis(300)))
                .isInstanceOf(HttpTimeoutException.class);
    }

    @Test
    void aPeerThatDoesNotSpeakHttpIsAProtocolError() throws Exception {
        server = new ScriptedServer(request -> "SSH-2.0-OpenSSH\r\n\r\n");
        http = new BlockingHttp(server.uri(), Duration.ofSeconds(5));

        assertThatThrownBy(() -> http.exchange("GET", "/", HEADERS, new byte[0], Duration.ofSeconds(5)))
                .isInstanceOf(ProtocolException.class).hasMessageContaining("not an HTTP/1.1 answer");
    }

    /** Answers each request (head and Content-Length body) with the script's bytes; null: never answers. */
    private static final class ScriptedServer implements AutoCloseable {
        private final ServerSocket socket;
        private final Function<String, String> script;
        private final boolean closeAfterEachAnswer;
        final AtomicInteger connections = new AtomicInteger();
        /** Writes each answer a few bytes at a time, flushing each piece. */
        volatile boolean trickle;
        private final AtomicInteger requests = new AtomicInteger();
        volatile String lastRequest;

        ScriptedServer(Function<String, String> script) throws IOException {
            this(script, false);
        }

        ScriptedServer(Function<String, String> script, boolean closeAfterEachAnswer) throws IOException {
            this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.script = script;
            this.closeAfterEachAnswer = closeAfterEachAnswer;
            Thread.ofVirtual().start(this::accept);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + port());
        }

        int port() {
            return socket.getLocalPort();
        }

        void awaitRequests(int n) throws InterruptedException {
            while (requests.get() < n) {
                Thread.sleep(10);
            }
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    connections.incrementAndGet();
                    Thread.ofVirtual().start(() -> serve(s));
                } catch (IOException e) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            try (s; BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(),
                    StandardCharsets.ISO_8859_1)); OutputStream out = s.getOutputStream()) {
                while (true) {
                    StringBuilder head = new StringBuilder();
                    int length = 0;
                    for (String line = in.readLine(); ; line = in.readLine()) {
                        if (line == null) {
                            return;
                        }
                        head.append(line).append("\r\n");
                        if (line.toLowerCase().startsWith("content-length:")) {
                            length = Integer.parseInt(line.substring(15).strip());
                        }
                        if (line.isEmpty()) {
                            break;
                        }
                    }
                    char[] body = new char[length];
                    int read = 0;
                    while (read < length) {
                        read += in.read(body, read, length - read);
                    }
                    lastRequest = head + new String(body);
                    requests.incrementAndGet();
                    String answer = script.apply(head.toString());
                    if (answer == null) {
                        Thread.sleep(Long.MAX_VALUE);
                    }
                    byte[] bytes = answer.getBytes(StandardCharsets.ISO_8859_1);
                    for (int at = 0; at < bytes.length; at += trickle ? 7 : bytes.length) {
                        out.write(bytes, at, Math.min(trickle ? 7 : bytes.length, bytes.length - at));
                        out.flush();
                        if (trickle && at % 700 == 0) {
                            Thread.sleep(1);
                        }
                    }
                    if (closeAfterEachAnswer || answer.contains("Connection: close") || answer.startsWith("SSH")) {
                        return;
                    }
                }
            } catch (IOException | InterruptedException e) {
                // the test is over
            }
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
