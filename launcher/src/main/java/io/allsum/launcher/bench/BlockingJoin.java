package io.allsum.launcher.bench;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * {@code bench-rendezvous --clients blocking}: one simulated rank's keep-alive connection, its join written and its
 * answer read by the rank's own platform thread on a blocking socket, as TCPStore's clients do: no selector thread
 * and no hand-off between the answer's arrival and the rank holding it. It measures what the JDK HTTP client's
 * hand-offs cost (docs/benchmarks.md, "The 64-rank time, taken apart"). HTTP/1.1 answers with a Content-Length only:
 * the compact rank view, which the server never compresses. The product's client, through the JDK's, is
 * {@code --clients allsum}.
 */
final class BlockingJoin implements AutoCloseable {

    record Reply(int status, long crc, long length, byte[] body) {
    }

    private final String host;
    private final int port;
    private Socket socket;
    private OutputStream out;
    private InputStream in;

    BlockingJoin(URI base) {
        this.host = base.getHost();
        this.port = base.getPort();
    }

    Reply post(String pathAndQuery, String authorization, byte[] body, int readTimeoutMillis) throws IOException {
        StringBuilder head = new StringBuilder(256).append("POST ").append(pathAndQuery).append(" HTTP/1.1\r\nHost: ")
                .append(host).append(':').append(port).append("\r\nContent-Type: application/json\r\nContent-Length: ")
                .append(body.length).append("\r\n");
        if (authorization != null) {
            head.append("Authorization: ").append(authorization).append("\r\n");
        }
        byte[] h = head.append("\r\n").toString().getBytes(StandardCharsets.US_ASCII);
        byte[] message = new byte[h.length + body.length];
        System.arraycopy(h, 0, message, 0, h.length);
        System.arraycopy(body, 0, message, h.length, body.length);
        if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), 10_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 4096);
        }
        socket.setSoTimeout(readTimeoutMillis);
        try {
            out.write(message);
            out.flush();
            return read();
        } catch (IOException e) {
            close();
            throw e;
        }
    }

    private Reply read() throws IOException {
        int status = -1;
        long length = -1;
        boolean close = false;
        StringBuilder line = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("no bytes: the server closed the connection");
            }
            if (c != '\n') {
                line.append((char) c);
                continue;
            }
            String l = line.toString().strip();
            line.setLength(0);
            if (status < 0) {
                status = Integer.parseInt(l.split(" ")[1]);
            } else if (l.isEmpty()) {
                break;
            } else {
                String lower = l.toLowerCase(Locale.ROOT);
                if (lower.startsWith("content-length:")) {
                    length = Long.parseLong(l.substring(15).strip());
                } else if (lower.startsWith("connection:") && lower.contains("close")) {
                    close = true;
                }
            }
        }
        if (length < 0) {
            throw new IOException("answer without Content-Length");
        }
        byte[] body = in.readNBytes((int) length);
        if (close) {
            close();
        }
        CRC32 crc = new CRC32();
        crc.update(body);
        return new Reply(status, crc.getValue(), body.length, body);
    }

    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.close();
            }
        } catch (IOException ignored) {
            // closing a broken connection
        } finally {
            socket = null;
        }
    }
}
