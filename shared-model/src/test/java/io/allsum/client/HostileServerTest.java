package io.allsum.client;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.JoinRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The client against a server that answers what no allsum server would, on a plain socket: every call ends
 * promptly with an {@link AllsumClientException} that says what was wrong, reads no more than its limit, and lets
 * the connection go.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HostileServerTest {

    private static final RetryPolicy FAST = new RetryPolicy(Duration.ofMillis(10), 2, Duration.ofMillis(100),
            Duration.ofSeconds(10));
    private static final byte[] CHUNK = new byte[64 * 1024];

    private HostileServer server;
    private HttpAllsumClient client;

    @AfterEach
    void stop() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private HttpAllsumClient client(Duration requestTimeout) {
        client = HttpAllsumClient.builder(server.uri()).retryPolicy(FAST).requestTimeout(requestTimeout).build();
        return client;
    }

    private static JoinRequest rank1() {
        return new JoinRequest("g", 1, 2, "i1", Backend.RING, null, "127.0.0.1:1", null, null);
    }

    @Test
    void aGzipBombEndsAtTheAnswerLimitOfEachRoute() throws IOException {
        // 65 MiB of zeros in 64 KiB of gzip: past the small limit of a rank view and the large one of a status.
        ByteArrayOutputStream gzip = new ByteArrayOutputStream();
        try (GZIPOutputStream out = new GZIPOutputStream(gzip)) {
            for (int i = 0; i < 65 * 16; i++) {
                out.write(CHUNK);
            }
        }
        byte[] bomb = gzip.toByteArray();
        server = new HostileServer(out -> {
            out.write(head("Content-Encoding: gzip\r\nContent-Length: " + bomb.length));
            out.write(bomb);
        });
        HttpAllsumClient client = client(Duration.ofSeconds(5));

        AllsumClientException join = catchThrowableOfType(AllsumClientException.class,
                () -> client.joinRank(rank1(), Duration.ofSeconds(5)));
        AllsumClientException status = catchThrowableOfType(AllsumClientException.class, () -> client.status("g"));

        assertThat(join.title()).isEqualTo("Unreadable answer");
        assertThat(join.detail()).isEqualTo("the answer from " + server.uri() + "/rendezvous to POST inflates past "
                + "the limit of 1 MiB");
        assertThat(status.detail()).isEqualTo("the answer from " + server.uri() + "/rendezvous/g to GET inflates past "
                + "the limit of 64 MiB");
        assertThat(server.requests()).hasValue(2);
    }

    @Test
    void anEndlessChunkedBodyEndsAtTheLimitAndTheConnectionIsLetGo() throws Exception {
        server = new HostileServer(out -> {
            out.write(head("Transfer-Encoding: chunked"));
            byte[] size = (Integer.toHexString(CHUNK.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
            while (true) {
                out.write(size);
                out.write(CHUNK);
                out.write(CRLF);
            }
        });

        AllsumClientException e = promptly(
                () -> client(Duration.ofSeconds(30)).joinRank(rank1(), Duration.ofSeconds(20)));
        assertThat(e.status()).isEqualTo(200);
        assertThat(e.title()).isEqualTo("Unreadable answer");
        assertThat(e.detail()).startsWith("the answer from " + server.uri() + "/rendezvous to POST (status 200, at "
                + "most 1 MiB accepted) could not be read:").contains("exceeds capacity");
        assertReadAtMostTheLimitAndLetGo(1 << 20);
    }

    @Test
    void anEndlessBodyWithoutALengthEndsAtTheLimit() throws Exception {
        server = new HostileServer(out -> {
            out.write(head("Connection: close"));
            while (true) {
                out.write(CHUNK);
            }
        });

        AllsumClientException e = promptly(
                () -> client(Duration.ofSeconds(30)).nextJob("g", 1, "i1", 0, Duration.ofSeconds(5)));

        assertThat(e.detail()).contains("/rendezvous/g/jobs/next to GET (status 200, at most 1 MiB accepted)");
        assertReadAtMostTheLimitAndLetGo(1 << 20);
    }

    @Test
    void aBodyWithoutALengthThatNeverEndsTimesOut() throws Exception {
        server = answering("Cache-Control: no-store", "{\"group\":");
        AllsumClientException e = promptly(() -> client(Duration.ofSeconds(1)).status("g"));

        assertThat(e.title()).isEqualTo("Request timed out");
        assertThat(e.timedOut()).isTrue();
        assertThat(e.detail()).contains("GET /rendezvous/g within PT1S");
        assertThat(server.clientLetGo()).succeedsWithin(Duration.ofSeconds(5));
    }

    @Test
    void aBodyThatTricklesForeverTimesOutAtTheRequestTimeout() throws Exception {
        // A byte every 50 ms: the JDK's own request timeout starts again at each one and would never fire.
        server = new HostileServer(out -> {
            out.write(head("Transfer-Encoding: chunked"));
            while (true) {
                out.write("1\r\n \r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                sleep(50);
            }
        });
        AllsumClientException e = promptly(() -> client(Duration.ofSeconds(1)).heartbeat("g",
                new io.allsum.model.rendezvous.HeartbeatRequest(1, "i1", 1L)));

        assertThat(e.title()).isEqualTo("Request timed out");
        assertThat(server.clientLetGo()).succeedsWithin(Duration.ofSeconds(5));
        assertThat(server.requests()).as("a timeout is not retried").hasValue(1);
    }

    @Test
    void aHugeContentLengthIsRefusedBeforeAnyOfItIsRead() throws Exception {
        server = answering("Content-Length: 1000000000000", "{\"group\":\"g\"");
        AllsumClientException e = promptly(() -> client(Duration.ofSeconds(30)).status("g"));

        assertThat(e.status()).isEqualTo(200);
        assertThat(e.detail()).isEqualTo("the answer from " + server.uri() + "/rendezvous/g to GET declares "
                + "1000000000000 bytes, above the limit of 64 MiB");
        assertThat(server.requests()).as("not retried").hasValue(1);
        assertThat(server.clientLetGo()).succeedsWithin(Duration.ofSeconds(5));
    }

    @Test
    void aNegativeChunkSizeIsAnUnreadableAnswerAtOnce() throws Exception {
        server = answering("Transfer-Encoding: chunked", "-5\r\nabc\r\n");
        AllsumClientException e = promptly(
                () -> client(Duration.ofSeconds(30)).joinRank(rank1(), Duration.ofSeconds(20)));

        assertThat(e.title()).isEqualTo("Unreadable answer");
        assertThat(e.detail()).contains("/rendezvous to POST (status 200, at most 1 MiB accepted) could not be read")
                .contains("chunk size");
        assertThat(server.requests()).as("not retried").hasValue(1);
    }

    /** The call's exception, thrown within 5 s. */
    private static AllsumClientException promptly(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        long start = System.nanoTime();
        AllsumClientException e = catchThrowableOfType(AllsumClientException.class, call);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        return e;
    }

    private void assertReadAtMostTheLimitAndLetGo(long limit) throws Exception {
        long written = server.clientLetGo().get(10, TimeUnit.SECONDS);
        // What the client took, plus what loopback's socket buffers held when it closed.
        assertThat(written).isLessThan(limit + (32L << 20));
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** Answers every request with a head of {@code fields} and {@code body}, no more (the server flushes it). */
    private static HostileServer answering(String fields, String body) throws IOException {
        return new HostileServer(out -> {
            out.write(head(fields));
            out.write(body.getBytes(StandardCharsets.US_ASCII));
        });
    }

    private static byte[] head(String fields) {
        return ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n" + fields + "\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new IOException(e);
        }
    }

    /** What the server writes after reading a request; it may write forever. */
    private interface Answer {
        void write(OutputStream out) throws IOException;
    }

    /**
     * Answers every request with {@link Answer} on loopback, then waits for the client to close the connection;
     * {@link #clientLetGo()} completes with the bytes written by then.
     */
    private static final class HostileServer implements AutoCloseable {
        private final ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final Answer answer;
        private final AtomicInteger requests = new AtomicInteger();
        private final CompletableFuture<Long> letGo = new CompletableFuture<>();

        HostileServer(Answer answer) throws IOException {
            this.answer = answer;
            Thread.ofVirtual().start(this::accept);
        }

        URI uri() {
            return URI.create("http://127.0.0.1:" + socket.getLocalPort());
        }

        AtomicInteger requests() {
            return requests;
        }

        CompletableFuture<Long> clientLetGo() {
            return letGo;
        }

        private void accept() {
            while (!socket.isClosed()) {
                try {
                    Socket s = socket.accept();
                    Thread.ofVirtual().start(() -> serve(s));
                } catch (IOException closed) {
                    return;
                }
            }
        }

        private void serve(Socket s) {
            CountingStream out = null;
            try (s) {
                InputStream in = s.getInputStream();
                while (readRequest(in)) {
                    requests.incrementAndGet();
                    out = new CountingStream(s.getOutputStream());
                    answer.write(out);
                    out.flush();
                }
            } catch (IOException e) {
                // the client closed the connection
            }
            letGo.complete(out == null ? 0 : out.count);
        }

        /** Reads one request's head and body; false when the client closed the connection instead. */
        private static boolean readRequest(InputStream in) throws IOException {
            StringBuilder head = new StringBuilder();
            for (int c; !head.toString().endsWith("\r\n\r\n"); head.append((char) c)) {
                c = in.read();
                if (c < 0) {
                    return false;
                }
            }
            long length = head.toString().lines().filter(l -> l.regionMatches(true, 0, "Content-Length:", 0, 15))
                    .mapToLong(l -> Long.parseLong(l.substring(15).strip())).findFirst().orElse(0);
            in.readNBytes((int) length);
            return true;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static final class CountingStream extends OutputStream {
        private final OutputStream out;
        private long count;

        CountingStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count += len;
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }
    }
}
