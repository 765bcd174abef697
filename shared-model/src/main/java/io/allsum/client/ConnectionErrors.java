package io.allsum.client;

import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import java.nio.channels.ClosedChannelException;
import java.util.Locale;
import javax.net.ssl.SSLException;

/** What a failed exchange was: whether sending it again may help, and how to say why it failed. */
final class ConnectionErrors {

    private ConnectionErrors() {
    }

    /**
     * Connection-level failures after which the same request may simply be sent again: refused, connect timeout,
     * or the connection closed/reset before an answer (a server restarting, or an idle pooled connection it shut).
     * Decided by type alone: the JDK client reports a connection it lost as a plain {@link IOException}, so any
     * I/O failure counts, except those that re-sending cannot fix: a request timeout (the server is there but slow,
     * and re-sending would only add load), a protocol error (the peer is not an allsum server) and TLS failures.
     */
    static boolean isConnectionError(Throwable error) {
        boolean io = false;
        for (Throwable t = error; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException) {
                return true;
            }
            if (t instanceof HttpTimeoutException || t instanceof ProtocolException || t instanceof SSLException) {
                return false;
            }
            io |= t instanceof IOException;
        }
        return io;
    }

    /**
     * Why a connection failed, in the words a person expects: the JDK reports a refused connection as a
     * ConnectException with no message around a ClosedChannelException, which says nothing by itself.
     */
    static String reason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof HttpConnectTimeoutException) {
                return "connect timed out";
            }
            if (t instanceof ConnectException) {
                String m = t.getMessage();
                return m == null || m.isBlank() || m.toLowerCase(Locale.ROOT).contains("refused")
                        ? "connection refused" : m;
            }
            if (t instanceof UnknownHostException) {
                return "unknown host " + t.getMessage();
            }
            if (t instanceof ClosedChannelException || t instanceof EOFException) {
                return "the connection was closed before an answer";
            }
        }
        return describe(e);
    }

    /** The first message in the cause chain, with its exception's simple name; the name alone where none has one. */
    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getMessage() == null && root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() == null ? root.getClass().getSimpleName()
                : root.getClass().getSimpleName() + ": " + root.getMessage();
    }
}
