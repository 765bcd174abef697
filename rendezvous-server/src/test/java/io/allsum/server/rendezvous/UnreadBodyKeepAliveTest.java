package io.allsum.server.rendezvous;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A body refused after its first bad token (here 40 KB of nested arrays, below the body limit) is answered 400 and
 * the connection, which the answer kept alive, serves the next request: the server reads the rest of the body
 * rather than closing the connection without saying so.
 */
class UnreadBodyKeepAliveTest extends RendezvousHttpTestBase {

    @Test
    void theConnectionServesTheNextRequestAfterAnEarly400() throws IOException {
        byte[] body = ("[".repeat(20_000) + "]".repeat(20_000)).getBytes(StandardCharsets.US_ASCII);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write(("POST /rendezvous/unread/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(body);
            out.flush();
            String refused = readResponse(in);
            assertThat(refused).startsWith("HTTP/1.1 400").doesNotContainIgnoringCase("connection: close");

            out.write("GET /actuator/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readResponse(in)).startsWith("HTTP/1.1 200");
        }
    }

    /** One response, headers and body (chunked or with a length); what was read if the server closed first. */
    private static String readResponse(InputStream in) throws IOException {
        ByteArrayOutputStream read = new ByteArrayOutputStream();
        int headerEnd = -1;
        while (headerEnd < 0) {
            int b = in.read();
            if (b < 0) {
                return read.toString(StandardCharsets.US_ASCII);
            }
            read.write(b);
            headerEnd = read.toString(StandardCharsets.US_ASCII).indexOf("\r\n\r\n");
        }
        String headers = read.toString(StandardCharsets.US_ASCII).toLowerCase();
        if (headers.contains("transfer-encoding: chunked")) {
            while (!read.toString(StandardCharsets.US_ASCII).endsWith("\r\n0\r\n\r\n")) {
                int b = in.read();
                if (b < 0) {
                    break;
                }
                read.write(b);
            }
        } else {
            int at = headers.indexOf("content-length: ");
            int length = at < 0 ? 0 : Integer.parseInt(headers.substring(at + 16, headers.indexOf("\r\n", at)).strip());
            read.write(in.readNBytes(length));
        }
        return read.toString(StandardCharsets.US_ASCII);
    }
}
