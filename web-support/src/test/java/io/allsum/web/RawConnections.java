package io.allsum.web;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/** Raw TCP connections to a local HTTP port, for the connection-bound tests of server and worker. */
public final class RawConnections {

    private RawConnections() {
    }

    /** A connected socket that sends nothing; reads wait at most 10 s. */
    public static Socket open(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        socket.setSoTimeout(10_000);
        return socket;
    }

    /** True when the peer closed the connection (end of stream or reset) before the socket's read timeout. */
    public static boolean closedByPeer(Socket socket) {
        try (InputStream in = socket.getInputStream()) {
            while (in.read() >= 0) {
                // whatever the peer wrote before closing
            }
            return true;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }
}
