package io.allsum.model.rendezvous;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * Gzip bodies on the join path: the server gzips a large join answer (the whole member list) once per generation
 * for clients that send {@code Accept-Encoding: gzip}; the JDK HTTP client neither asks nor inflates by itself.
 */
public final class GzipBodies {

    /** Header value that asks for gzip; identity stays acceptable. */
    public static final String ACCEPT_ENCODING = "gzip";

    private GzipBodies() {
    }

    /** True when the answer's {@code Content-Encoding} is gzip (or its old alias x-gzip). */
    public static boolean isGzip(HttpHeaders headers) {
        return headers.firstValue("Content-Encoding")
                .map(value -> value.strip().toLowerCase(Locale.ROOT))
                .filter(value -> value.equals("gzip") || value.equals("x-gzip"))
                .isPresent();
    }

    /** The body as sent, whatever its size (for a benchmark's own answers). */
    public static byte[] inflate(byte[] gzip) throws IOException {
        return inflate(gzip, Integer.MAX_VALUE - 8);
    }

    /**
     * The body as sent, read to at most {@code limit} bytes: a small body can inflate without end.
     *
     * @throws TooLarge when it inflates past {@code limit}
     */
    public static byte[] inflate(byte[] gzip, long limit) throws IOException {
        int most = (int) Math.min(limit, Integer.MAX_VALUE - 8);
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip), 16 * 1024)) {
            byte[] body = in.readNBytes(most);
            if (in.read() >= 0) {
                throw new TooLarge(most);
            }
            return body;
        }
    }

    /** A gzip body that inflates past its limit. */
    public static final class TooLarge extends IOException {
        TooLarge(long limit) {
            super("the gzip body inflates past " + limit + " bytes");
        }
    }
}
