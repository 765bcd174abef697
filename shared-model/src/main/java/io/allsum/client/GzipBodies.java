package io.allsum.client;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * The client half of gzip answers: the server gzips a large join answer (the whole member list) once per generation
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

    /** The body as sent when the answer is gzip-encoded, else the body unchanged. */
    public static byte[] decode(byte[] body, HttpHeaders headers) throws IOException {
        return isGzip(headers) ? inflate(body) : body;
    }

    public static byte[] inflate(byte[] gzip) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzip), 16 * 1024)) {
            return in.readAllBytes();
        }
    }
}
