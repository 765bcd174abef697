package io.allsum.comm.ring;

import io.allsum.model.rendezvous.Endpoint;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** The ring's socket addresses of {@link Endpoint}s, whose syntax that type alone reads and writes. */
public final class Endpoints {

    private Endpoints() {
    }

    public static String format(String host, int port) {
        return Endpoint.format(host, port);
    }

    public static String format(InetAddress address, int port) {
        String host = address.getHostAddress();
        if (address instanceof Inet6Address) {
            int zone = host.indexOf('%');
            if (zone >= 0 && address.isLoopbackAddress()) {
                host = host.substring(0, zone);
            }
        }
        return format(host, port);
    }

    /** Parses an endpoint without resolving it; throws IllegalArgumentException naming what is wrong with it. */
    public static InetSocketAddress parse(String endpoint) {
        Endpoint parsed = Endpoint.parse(endpoint);
        return InetSocketAddress.createUnresolved(parsed.host(), parsed.port());
    }
}
