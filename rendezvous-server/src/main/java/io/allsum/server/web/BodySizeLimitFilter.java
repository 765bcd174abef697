package io.allsum.server.web;

import io.allsum.model.problem.ProblemCode;
import io.allsum.web.ProblemWriter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import org.springframework.http.HttpHeaders;
import org.springframework.web.filter.OncePerRequestFilter;

import java.io.IOException;

/**
 * Answers 413 for bodies above the limit: at once when Content-Length says so, and for chunked bodies as soon as
 * reading passes the limit (the ProblemDetail advice turns {@link BodyTooLargeException} into the 413).
 */
public class BodySizeLimitFilter extends OncePerRequestFilter {

    /** The most of a refused body read and dropped before the answer (as Tomcat's {@code maxSwallowSize}). */
    public static final long SWALLOW_BYTES = 2 * 1024 * 1024;

    private final long limitBytes;
    private final ProblemWriter problems;

    public BodySizeLimitFilter(long limitBytes, ProblemWriter problems) {
        this.limitBytes = limitBytes;
        this.problems = problems;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        long declared = request.getContentLengthLong();
        if (declared > limitBytes) {
            if (declared <= SWALLOW_BYTES) {
                swallow(request);
            } else {
                response.setHeader(HttpHeaders.CONNECTION, "close");
            }
            problems.write(request, response, ProblemWriter.problem(ProblemCode.BODY_TOO_LARGE,
                    "the request body has " + declared + " bytes; the limit is " + limitBytes + " bytes"));
            return;
        }
        LimitedRequest limited = new LimitedRequest(request, limitBytes);
        try {
            chain.doFilter(limited, response);
        } finally {
            if (limited.exceeded() || leftUnread(request)) {
                swallow(request);
            }
        }
    }

    /**
     * A body the answer did not need (a 4xx after its first bad token) is read to its end too: Jetty closes the
     * connection after an answer that left more than a buffer unread, without saying so, and the client's next
     * request on it gets no answer. Not after a 100-continue expectation, whose body the client sends only if read.
     */
    private static boolean leftUnread(HttpServletRequest request) {
        return !request.isAsyncStarted() && request.getHeader(HttpHeaders.EXPECT) == null
                && (request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null);
    }

    /**
     * Reads and drops the rest of a refused body, up to {@link #SWALLOW_BYTES}, so that the client, still sending
     * it, finishes and reads the 413. Jetty closes a connection with unread content, and a client that is still
     * writing then gets a reset instead of the answer (Tomcat swallowed up to 2 MB by itself).
     */
    private static void swallow(HttpServletRequest request) {
        byte[] sink = new byte[8192];
        long left = SWALLOW_BYTES;
        try {
            ServletInputStream in = request.getInputStream();
            for (int n; left > 0 && (n = in.read(sink, 0, (int) Math.min(sink.length, left))) > 0; ) {
                left -= n;
            }
        } catch (IOException | IllegalStateException e) {
            // the client went away, or the body was read as a reader: nothing to drain
        }
    }

    private static final class LimitedRequest extends HttpServletRequestWrapper {
        private final long limitBytes;
        private LimitedInputStream limited;

        LimitedRequest(HttpServletRequest request, long limitBytes) {
            super(request);
            this.limitBytes = limitBytes;
        }

        boolean exceeded() {
            return limited != null && limited.exceeded;
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (limited == null) {
                limited = new LimitedInputStream(super.getInputStream(), limitBytes);
            }
            return limited;
        }
    }

    private static final class LimitedInputStream extends ServletInputStream {
        private final ServletInputStream in;
        private final long limitBytes;
        private long read;
        private boolean exceeded;

        LimitedInputStream(ServletInputStream in, long limitBytes) {
            this.in = in;
            this.limitBytes = limitBytes;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = in.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws BodyTooLargeException {
            read += n;
            if (read > limitBytes) {
                exceeded = true;
                throw new BodyTooLargeException(limitBytes);
            }
        }

        @Override
        public boolean isFinished() {
            return in.isFinished();
        }

        @Override
        public boolean isReady() {
            return in.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            in.setReadListener(listener);
        }
    }
}
