package io.allsum.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ProtocolException;
import java.net.SocketException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpTimeoutException;
import javax.net.ssl.SSLHandshakeException;

import static org.assertj.core.api.Assertions.assertThat;

class ConnectionErrorTest {

    @Test
    void refusedConnectTimeoutAndClosedConnectionsAreRetryable() {
        assertThat(ConnectionErrors.isConnectionError(new ConnectException())).isTrue();
        assertThat(ConnectionErrors.isConnectionError(new HttpConnectTimeoutException("connect timed out"))).isTrue();
        assertThat(ConnectionErrors.isConnectionError(new IOException("HTTP/1.1 header parser received no bytes"))).isTrue();
        assertThat(ConnectionErrors.isConnectionError(new SocketException("Connection reset"))).isTrue();
        assertThat(ConnectionErrors.isConnectionError(new IOException("wrapped", new ConnectException("refused")))).isTrue();
    }

    @Test
    void requestTimeoutsAndOtherFailuresAreNot() {
        assertThat(ConnectionErrors.isConnectionError(new HttpTimeoutException("request timed out"))).isFalse();
        assertThat(ConnectionErrors.isConnectionError(new ProtocolException("Invalid status line"))).isFalse();
        assertThat(ConnectionErrors.isConnectionError(new IOException("w", new SSLHandshakeException("no cert")))).isFalse();
        assertThat(ConnectionErrors.isConnectionError(new IllegalStateException("not I/O"))).isFalse();
    }

    @Test
    void aRefusedConnectionIsNamedSoInsteadOfByItsClosedChannelCause() {
        ConnectException refused = new ConnectException();
        refused.initCause(new java.nio.channels.ClosedChannelException());

        assertThat(ConnectionErrors.reason(new IOException(null, refused))).isEqualTo("connection refused");
        assertThat(ConnectionErrors.reason(new HttpConnectTimeoutException("x"))).isEqualTo("connect timed out");
        assertThat(ConnectionErrors.reason(new java.nio.channels.ClosedChannelException()))
                .isEqualTo("the connection was closed before an answer");
    }
}
