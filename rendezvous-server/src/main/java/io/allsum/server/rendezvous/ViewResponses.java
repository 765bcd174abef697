package io.allsum.server.rendezvous;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

import java.io.IOException;

/**
 * Writes a complete generation's view straight to the servlet response: the same pre-encoded bytes for every rank,
 * gzipped (once per generation) for clients that send {@code Accept-Encoding: gzip}, identity JSON otherwise.
 */
@Component
public class ViewResponses {

    private final ViewEncoder encoder;

    public ViewResponses(ViewEncoder encoder) {
        this.encoder = encoder;
    }

    void write(EncodedView view, HttpServletRequest request, HttpServletResponse response) throws IOException {
        EncodedView.Bodies bodies = encoder.bodies(view);
        boolean gzip = AcceptEncoding.allowsGzip(request.getHeaders(HttpHeaders.ACCEPT_ENCODING));
        byte[] body = gzip ? bodies.gzip() : bodies.json();
        response.setStatus(HttpServletResponse.SC_OK);
        response.setContentType(MediaType.APPLICATION_JSON_VALUE);
        // Caches and proxies must not hand the gzip body to a client that did not ask for it, nor the reverse.
        response.setHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
        if (gzip) {
            response.setHeader(HttpHeaders.CONTENT_ENCODING, "gzip");
        }
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        response.flushBuffer();
    }
}
