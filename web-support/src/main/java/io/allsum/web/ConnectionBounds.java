package io.allsum.web;

import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.internal.HttpConnection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Applies {@link HttpLimitsProperties} to a Jetty server: Jetty's {@link NetworkConnectionLimit} for the total, and
 * on every connector a listener that closes a connection over its address's limit or one whose first request header
 * is not complete by the header timeout.
 */
final class ConnectionBounds implements Connection.Listener {

    private final HttpLimitsProperties limits;
    private final Connector connector;
    private final ConcurrentHashMap<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    /** Each counted connection's address: a closed endpoint no longer tells it. */
    private final ConcurrentHashMap<Connection, InetAddress> counted = new ConcurrentHashMap<>();

    private ConnectionBounds(HttpLimitsProperties limits, Connector connector) {
        this.limits = limits;
        this.connector = connector;
    }

    static void apply(Server server, HttpLimitsProperties limits) {
        server.addBean(new NetworkConnectionLimit(limits.maxConnections(), server));
        for (Connector connector : server.getConnectors()) {
            connector.addBean(new ConnectionBounds(limits, connector));
        }
    }

    @Override
    public void onOpened(Connection connection) {
        EndPoint endPoint = connection.getEndPoint();
        if (limits.maxConnectionsPerAddress() > 0 && address(endPoint) instanceof InetAddress address) {
            counted.put(connection, address);
            if (perAddress.merge(address, 1, Integer::sum) > limits.maxConnectionsPerAddress()) {
                endPoint.close();
                return;
            }
        }
        if (connection instanceof HttpConnection http) {
            connector.getScheduler().schedule(() -> {
                if (http.getMessagesIn() == 0) {
                    endPoint.close();
                }
            }, limits.headerTimeout().toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    @Override
    public void onClosed(Connection connection) {
        if (counted.remove(connection) instanceof InetAddress address) {
            perAddress.computeIfPresent(address, (key, count) -> count <= 1 ? null : count - 1);
        }
    }

    private static InetAddress address(EndPoint endPoint) {
        SocketAddress remote = endPoint.getRemoteSocketAddress();
        return remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
    }
}
