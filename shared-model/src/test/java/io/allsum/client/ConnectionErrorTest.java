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
        assertThat(HttpAllsumClient.isConnectionError(new ConnectException())).isTrue();
        assertThat(HttpAllsumClient.isConnectionError(new HttpConnectTimeoutException("connect timed out"))).isTrue();
        assertThat(HttpAllsumClient.isConnectionError(new IOException("HTTP/1.1 header parser received no bytes"))).isTrue();
        assertThat(HttpAllsumClient.isConnectionError(new SocketException("Connection reset"))).isTrue();
        assertThat(HttpAllsumClient.isConnectionError(new IOException("wrapped", new ConnectException("refused")))).isTrue();
    }

    @Test
    void requestTimeoutsAndOtherFailuresAreNot() {
        assertThat(HttpAllsumClient.isConnectionError(new HttpTimeoutException("request timed out"))).isFalse();
        assertThat(HttpAllsumClient.isConnectionError(new ProtocolException("Invalid status line"))).isFalse();
        assertThat(HttpAllsumClient.isConnectionError(new IOException("w", new SSLHandshakeException("no cert")))).isFalse();
        assertThat(HttpAllsumClient.isConnectionError(new IllegalStateException("not I/O"))).isFalse();
    }

    @Test
    void aRefusedConnectionIsNamedSoInsteadOfByItsClosedChannelCause() {
        ConnectException refused = new ConnectException();
        refused.initCause(new java.nio.channels.ClosedChannelException());

        assertThat(HttpAllsumClient.reason(new IOException(null, refused))).isEqualTo("connection refused");
        assertThat(HttpAllsumClient.reason(new HttpConnectTimeoutException("x"))).isEqualTo("connect timed out");
        assertThat(HttpAllsumClient.reason(new java.nio.channels.ClosedChannelException()))
                .isEqualTo("the connection was closed before an answer");
    }

    @Test
    void joinWaitIsWholeSecondsBetweenOneAndThirty() {
        assertThat(HttpAllsumClient.joinWait(java.time.Duration.ofMinutes(5))).hasSeconds(30);
        assertThat(HttpAllsumClient.joinWait(java.time.Duration.ofMillis(12_700))).hasSeconds(12);
        assertThat(HttpAllsumClient.joinWait(java.time.Duration.ofMillis(200))).hasSeconds(1);
    }

    @Test
    void pathSegmentsArePercentEncoded() {
        assertThat(ClientPaths.encode("a-b_c.d~9")).isEqualTo("a-b_c.d~9");
        assertThat(ClientPaths.encode("x/y z")).isEqualTo("x%2Fy%20z");
        assertThat(ClientPaths.encode("é")).isEqualTo("%C3%A9");
    }
}
