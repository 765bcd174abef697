package io.allsum.server.web;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.model.rendezvous.Member;
import io.allsum.server.rendezvous.EncodedView;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

import java.io.IOException;
import java.util.function.Function;

/**
 * Writes a complete generation's view straight to the servlet response: the same pre-encoded bytes for every rank,
 * gzipped (once per generation) for clients that send {@code Accept-Encoding: gzip}, identity JSON otherwise.
 */
@Component
public class ViewResponses {

    private final Function<GroupView, byte[]> encoder;

    public ViewResponses(JsonMapper json) {
        // A member's absent endpoint, host or device is left out: at thousands of members the nulls add up.
        JsonMapper viewJson = json.rebuild()
                .withConfigOverride(Member.class, override -> override.setInclude(
                        JsonInclude.Value.construct(JsonInclude.Include.NON_NULL, JsonInclude.Include.NON_NULL)))
                .build();
        this.encoder = viewJson::writeValueAsBytes;
    }

    /** The JSON and gzip bodies of a view, encoded by the first caller for this generation. */
    EncodedView.Bodies bodies(EncodedView view) {
        return view.bodies(encoder);
    }

    void write(EncodedView view, HttpServletRequest request, HttpServletResponse response) throws IOException {
        EncodedView.Bodies bodies = bodies(view);
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
