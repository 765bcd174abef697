package io.allsum.client;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ProtocolException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * HTTP/1.1 over blocking sockets, for the long-polls (a join, the next job): the calling thread writes the request
 * and reads the answer itself, so nothing stands between the answer's arrival and the caller. Through the JDK's HTTP
 * client a selector thread reads every answer and then wakes the caller, and at 64 ranks those hand-offs were about
 * 1 ms of the time from the last join until every rank held its answer (docs/benchmarks.md, "The 64-rank time, taken
 * apart"). Plain {@code http} only; {@link HttpAllsumClient} sends {@code https} through the JDK client.
 *
 * <p>Connections are kept alive and reused, one per concurrent call. A call reads in slices of {@link #SLICE}, so
 * it still ends on an interrupt, on {@link #close()} and at its timeout, as a call through the JDK client does.
 */
final class BlockingHttp implements AutoCloseable {

    /** How long one blocking read may wait before the call looks at its interrupt, the client's close and its deadline. */
    static final Duration SLICE = Duration.ofMillis(100);
    private static final int MAX_HEAD_BYTES = 64 * 1024;

    record Answer(int status, HttpHeaders headers, byte[] body) {
    }

    private final URI base;
    private final String hostHeader;
    private final Duration connectTimeout;
    private final Deque<Connection> idle = new ConcurrentLinkedDeque<>();
    private final Set<Connection> busy = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean closed = new AtomicBoolean();

    BlockingHttp(URI base, Duration connectTimeout) {
        this.base = base;
        int port = base.getPort() < 0 ? 80 : base.getPort();
        this.hostHeader = base.getHost() + (base.getPort() < 0 ? "" : ":" + port);
        this.connectTimeout = connectTimeout;
    }

    /**
     * One exchange. {@code headers} are sent as given (name, value, name, value ...), then Host and Content-Length.
     *
     * @throws HttpConnectTimeoutException when the connection is not made within the connect timeout
     * @throws HttpTimeoutException        when no complete answer came within {@code timeout}
     * @throws InterruptedException        when the calling thread is interrupted meanwhile
     * @throws IOException                 when the connection fails or the client is closed
     */
    Answer exchange(String method, String pathAndQuery, List<String> headers, byte[] body, Duration timeout)
            throws IOException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        byte[] request = request(method, pathAndQuery, headers, body);
        while (true) {
            Connection connection = idle.pollFirst();
            boolean reused = connection != null;
            if (connection == null) {
                connection = connect();
            }
            busy.add(connection);
            boolean keep = false;
            try {
                if (closed.get()) {
                    throw new IOException("the client was closed");
                }
                try {
                    connection.out.write(request);
                    connection.out.flush();
                } catch (IOException e) {
                    if (!reused || closed.get()) {
                        throw e;
                    }
                    continue; // a kept-alive connection the server had closed: the finally drops it
                }
                Answer answer = connection.read(method, deadline, closed);
                keep = connection.keepAlive;
                return answer;
            } catch (NothingRead e) {
                if (!reused) {
                    throw new EOFException("the connection was closed before an answer");
                }
                // A kept-alive connection the server had closed meanwhile: send again on a new one at once.
            } finally {
                busy.remove(connection);
                if (keep && !closed.get()) {
                    idle.addFirst(connection);
                    if (closed.get() && idle.remove(connection)) { // close() ran meanwhile and missed it
                        connection.close();
                    }
                } else {
                    connection.close();
                }
            }
        }
    }

    /** Closes every connection, idle or in a call (which then ends with an IOException). */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            for (Connection c; (c = idle.pollFirst()) != null; ) {
                c.close();
            }
            busy.forEach(Connection::close);
        }
    }

    /**
     * Reads an answer from bytes through the same code that reads one from a connection: {@link AnswerWarmUp}'s
     * samples, so that a fresh JVM's first real answer finds this path's classes loaded and its lambdas made.
     */
    static Answer read(String method, byte[] answer) throws IOException, InterruptedException {
        Connection canned = new Connection(null, new ByteArrayInputStream(answer), OutputStream.nullOutputStream());
        return canned.read(method, System.nanoTime() + SLICE.toNanos(), new AtomicBoolean());
    }

    private byte[] request(String method, String pathAndQuery, List<String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(512).append(method).append(' ').append(base.getRawPath())
                .append(pathAndQuery).append(" HTTP/1.1\r\nHost: ").append(hostHeader).append("\r\n");
        for (int i = 0; i < headers.size(); i += 2) {
            head.append(headers.get(i)).append(": ").append(headers.get(i + 1)).append("\r\n");
        }
        if (body.length > 0 || method.equals("POST") || method.equals("PUT")) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        byte[] h = head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] out = new byte[h.length + body.length];
        System.arraycopy(h, 0, out, 0, h.length);
        System.arraycopy(body, 0, out, h.length, body.length);
        return out;
    }

    private Connection connect() throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(base.getHost(), base.getPort() < 0 ? 80 : base.getPort()),
                    (int) Math.max(1, Math.min(Integer.MAX_VALUE, connectTimeout.toMillis())));
            socket.setSoTimeout((int) SLICE.toMillis());
            return new Connection(socket, socket.getInputStream(), socket.getOutputStream());
        } catch (SocketTimeoutException e) {
            socket.close();
            HttpConnectTimeoutException timeout = new HttpConnectTimeoutException("HTTP connect timed out");
            timeout.initCause(e);
            throw timeout;
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** The connection closed before the first byte of the answer: on a reused connection, worth one more try. */
    private static final class NothingRead extends IOException {
        NothingRead() {
            super("the connection was closed before an answer");
        }
    }

    private static final class Connection {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;
        private byte[] buffer = new byte[8192];
        private int position;
        private int limit;
        private boolean keepAlive;

        Connection(Socket socket, InputStream in, OutputStream out) {
            this.socket = socket;
            this.in = in;
            this.out = out;
        }

        void close() {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }

        Answer read(String method, long deadline, AtomicBoolean clientClosed) throws IOException, InterruptedException {
            Reader reader = new Reader(deadline, clientClosed);
            String statusLine = reader.line(true);
            String[] parts = statusLine.split(" ", 3);
            if (parts.length < 2 || !parts[0].startsWith("HTTP/1.")) {
                throw new ProtocolException("not an HTTP/1.1 answer: " + abbreviate(statusLine));
            }
            int status;
            try {
                status = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new ProtocolException("not an HTTP status: " + abbreviate(statusLine));
            }
            Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (String line = reader.line(false); !line.isEmpty(); line = reader.line(false)) {
                int colon = line.indexOf(':');
                if (colon <= 0) {
                    throw new ProtocolException("malformed header line: " + abbreviate(line));
                }
                fields.computeIfAbsent(line.substring(0, colon).strip(), k -> new ArrayList<>())
                        .add(line.substring(colon + 1).strip());
            }
            HttpHeaders headers = HttpHeaders.of(fields, (name, value) -> true);
            String connection = headers.firstValue("Connection").orElse("").toLowerCase(Locale.ROOT);
            keepAlive = parts[0].equals("HTTP/1.1") ? !connection.contains("close") : connection.contains("keep-alive");
            Optional<String> contentLength = headers.firstValue("Content-Length");
            byte[] body;
            if (method.equals("HEAD") || status / 100 == 1 || status == 204 || status == 304) {
                body = new byte[0];
            } else if (headers.firstValue("Transfer-Encoding").map(v -> v.toLowerCase(Locale.ROOT).contains("chunked"))
                    .orElse(false)) {
                body = reader.chunked();
            } else if (contentLength.isPresent()) {
                long length;
                try {
                    length = Long.parseLong(contentLength.get());
                } catch (NumberFormatException e) {
                    throw new ProtocolException("bad Content-Length");
                }
                if (length < 0 || length > Integer.MAX_VALUE - 16) {
                    throw new ProtocolException("bad Content-Length " + length);
                }
                body = reader.bytes((int) length);
            } else {
                body = reader.untilClosed();
                keepAlive = false;
            }
            return new Answer(status, headers, body);
        }

        private static String abbreviate(String s) {
            return s.length() > 80 ? s.substring(0, 80) + "..." : s;
        }

        /** Reads from the connection's buffer, refilling it in slices that look at the interrupt, close and deadline. */
        private final class Reader {
            private final long deadline;
            private final AtomicBoolean clientClosed;
            private int headBytes;

            Reader(long deadline, AtomicBoolean clientClosed) {
                this.deadline = deadline;
                this.clientClosed = clientClosed;
            }

            /** Reads more bytes after {@code limit}; false at the end of the stream. */
            private boolean fill() throws IOException, InterruptedException {
                if (position == limit) {
                    position = 0;
                    limit = 0;
                }
                while (true) {
                    if (Thread.interrupted()) {
                        throw new InterruptedException("interrupted while waiting for an answer");
                    }
                    if (clientClosed.get()) {
                        throw new IOException("the client was closed");
                    }
                    if (System.nanoTime() - deadline > 0) {
                        throw new HttpTimeoutException("request timed out");
                    }
                    try {
                        int n = in.read(buffer, limit, buffer.length - limit);
                        if (n < 0) {
                            return false;
                        }
                        limit += n;
                        return true;
                    } catch (SocketTimeoutException slice) {
                        // no bytes in this slice: look again
                    } catch (InterruptedIOException e) {
                        throw new InterruptedException("interrupted while waiting for an answer");
                    } catch (IOException e) {
                        if (Thread.currentThread().isInterrupted()) { // a virtual thread's read ends on interrupt
                            Thread.interrupted();
                            throw new InterruptedException("interrupted while waiting for an answer");
                        }
                        throw e;
                    }
                }
            }

            /**
             * The next line, without its CR LF. It is found by scanning the buffer and made into a String in one
             * step: a worker's join runs once per generation, never compiled, and a byte-by-byte builder cost the
             * interpreter several times more.
             */
            String line(boolean first) throws IOException, InterruptedException {
                int scan = position;
                while (true) {
                    for (; scan < limit; scan++) {
                        if (buffer[scan] == '\n') {
                            int end = scan > position && buffer[scan - 1] == '\r' ? scan - 1 : scan;
                            String line = new String(buffer, position, end - position, StandardCharsets.ISO_8859_1);
                            headBytes += scan + 1 - position;
                            position = scan + 1;
                            if (headBytes > MAX_HEAD_BYTES) {
                                throw new ProtocolException("answer headers longer than " + MAX_HEAD_BYTES + " bytes");
                            }
                            return line;
                        }
                    }
                    int scanned = scan - position;
                    if (headBytes + scanned > MAX_HEAD_BYTES) {
                        throw new ProtocolException("answer headers longer than " + MAX_HEAD_BYTES + " bytes");
                    }
                    if (position > 0) { // keep the line's start: move it to the front before reading more
                        System.arraycopy(buffer, position, buffer, 0, limit - position);
                        limit -= position;
                        position = 0;
                    }
                    if (limit == buffer.length) { // a long header line: grow, up to the head's limit
                        buffer = java.util.Arrays.copyOf(buffer, Math.min(2 * buffer.length, MAX_HEAD_BYTES + 2));
                    }
                    if (!fill()) {
                        if (first && scanned == 0 && headBytes == 0) {
                            throw new NothingRead();
                        }
                        throw new EOFException("the connection was closed in the middle of an answer");
                    }
                    scan = position + scanned;
                }
            }

            byte[] bytes(int length) throws IOException, InterruptedException {
                byte[] out = new byte[length];
                int done = 0;
                while (done < length) {
                    if (position == limit && !fill()) {
                        throw new EOFException("the connection was closed in the middle of an answer");
                    }
                    int n = Math.min(length - done, limit - position);
                    System.arraycopy(buffer, position, out, done, n);
                    position += n;
                    done += n;
                }
                return out;
            }

            byte[] chunked() throws IOException, InterruptedException {
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                while (true) {
                    String size = line(false);
                    int semicolon = size.indexOf(';');
                    int length;
                    try {
                        length = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).strip(), 16);
                    } catch (NumberFormatException e) {
                        throw new ProtocolException("bad chunk size: " + abbreviate(size));
                    }
                    if (length == 0) {
                        while (!line(false).isEmpty()) {
                            // trailer fields: none are used
                        }
                        return out.toByteArray();
                    }
                    out.writeBytes(bytes(length));
                    if (!line(false).isEmpty()) {
                        throw new ProtocolException("chunk not followed by CRLF");
                    }
                }
            }

            byte[] untilClosed() throws IOException, InterruptedException {
                java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
                while (position < limit || fill()) {
                    out.write(buffer, position, limit - position);
                    position = limit;
                }
                return out.toByteArray();
            }
        }
    }
}
