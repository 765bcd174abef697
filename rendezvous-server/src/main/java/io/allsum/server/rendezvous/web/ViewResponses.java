package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.EncodedView;
import io.allsum.server.rendezvous.ViewEncoder;
import io.allsum.server.web.HttpAnswer;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;

import java.io.IOException;
import java.util.Enumeration;
import java.util.List;

/**
 * A complete generation as an answer: the join answers ({@link HttpAnswer}s, written by either join path) and the
 * public view, written straight to the servlet response. The full view: the same pre-encoded bytes for
 * every rank, gzipped (once per generation) for clients that send {@code Accept-Encoding: gzip}, identity JSON
 * otherwise. The compact rank view: a few hundred bytes made per rank, never gzipped (it would not shrink).
 */
@Component
public class ViewResponses {

    /** The gzip body is another representation, so it gets its own strong ETag (RFC 9110, 8.8.3). */
    private static final String GZIP_TAG_SUFFIX = "-gzip";
    private static final List<String> JSON = List.of(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE);
    private static final List<String> JSON_VARY = List.of(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE,
            HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
    private static final List<String> JSON_GZIP = List.of(HttpHeaders.CONTENT_TYPE, MediaType.APPLICATION_JSON_VALUE,
            HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING, HttpHeaders.CONTENT_ENCODING, "gzip");

    private final ViewEncoder encoder;

    public ViewResponses(ViewEncoder encoder) {
        this.encoder = encoder;
    }

    /**
     * The full view, unique id included (the join answer for clients that did not ask for the rank view), gzip when
     * the client accepts it.
     */
    HttpAnswer full(EncodedView view, boolean gzip) {
        return answer(encoder.bodies(view), gzip);
    }

    /** The constant-size answer of {@code rank} ({@code view=rank}). */
    HttpAnswer rank(EncodedView view, int rank) {
        return new HttpAnswer(HttpServletResponse.SC_OK, JSON, encoder.rankBody(view, rank));
    }

    /**
     * {@code GET /rendezvous/{group}/view}: the full view without the unique id, with an ETag that names the
     * generation; 304 without a body when the client already holds it ({@code If-None-Match}).
     */
    void writePublic(EncodedView view, HttpServletRequest request, HttpServletResponse response) throws IOException {
        boolean gzip = AcceptEncoding.allowsGzip(request.getHeaders(HttpHeaders.ACCEPT_ENCODING));
        String etag = "\"" + view.tag() + (gzip ? GZIP_TAG_SUFFIX : "") + "\"";
        response.setHeader(HttpHeaders.ETAG, etag);
        // A view only changes with the generation: caches may keep it, but must ask (If-None-Match) before reuse.
        response.setHeader(HttpHeaders.CACHE_CONTROL, "no-cache");
        response.setHeader(HttpHeaders.VARY, HttpHeaders.ACCEPT_ENCODING);
        if (matches(request.getHeaders(HttpHeaders.IF_NONE_MATCH), view.tag())) {
            response.setStatus(HttpServletResponse.SC_NOT_MODIFIED);
            response.flushBuffer();
            return;
        }
        writeBodies(encoder.publicBodies(view), request, response);
    }

    private static void writeBodies(EncodedView.Bodies bodies, HttpServletRequest request,
                                    HttpServletResponse response) throws IOException {
        answer(bodies, AcceptEncoding.allowsGzip(request.getHeaders(HttpHeaders.ACCEPT_ENCODING))).writeTo(response);
    }

    private static HttpAnswer answer(EncodedView.Bodies bodies, boolean gzip) {
        // Caches and proxies must not hand the gzip body to a client that did not ask for it, nor the reverse.
        return gzip ? new HttpAnswer(HttpServletResponse.SC_OK, JSON_GZIP, bodies.gzip())
                : new HttpAnswer(HttpServletResponse.SC_OK, JSON_VARY, bodies.json());
    }

    /**
     * Whether an {@code If-None-Match} list names this view, in either encoding (weak comparison, RFC 9110 13.1.2:
     * a client that held the gzip form holds the same view).
     */
    static boolean matches(Enumeration<String> ifNoneMatch, String tag) {
        if (ifNoneMatch == null) {
            return false;
        }
        while (ifNoneMatch.hasMoreElements()) {
            for (String candidate : ifNoneMatch.nextElement().split(",")) {
                String t = candidate.strip();
                if (t.equals("*")) {
                    return true;
                }
                if (t.startsWith("W/")) {
                    t = t.substring(2);
                }
                if (t.equals("\"" + tag + "\"") || t.equals("\"" + tag + GZIP_TAG_SUFFIX + "\"")) {
                    return true;
                }
            }
        }
        return false;
    }
}
