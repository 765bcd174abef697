package io.allsum.comm.ring;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/** "host:port" endpoints, with IPv6 literals in brackets ("[::1]:5000"). */
public final class Endpoints {

    private Endpoints() {
    }

    public static String format(String host, int port) {
        boolean ipv6Literal = host.indexOf(':') >= 0 && !host.startsWith("[");
        return (ipv6Literal ? "[" + host + "]" : host) + ":" + port;
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

    /** Parses an endpoint without resolving it; throws IllegalArgumentException naming the bad endpoint. */
    public static InetSocketAddress parse(String endpoint) {
        if (endpoint == null || endpoint.isBlank()) {
            throw new IllegalArgumentException("endpoint is missing");
        }
        String host;
        String port;
        if (endpoint.startsWith("[")) {
            int close = endpoint.indexOf(']');
            if (close < 0 || close + 1 >= endpoint.length() || endpoint.charAt(close + 1) != ':') {
                throw new IllegalArgumentException("endpoint '" + endpoint + "' is not [ipv6]:port");
            }
            host = endpoint.substring(1, close);
            port = endpoint.substring(close + 2);
        } else {
            int colon = endpoint.lastIndexOf(':');
            if (colon <= 0 || endpoint.indexOf(':') != colon) {
                throw new IllegalArgumentException("endpoint '" + endpoint + "' is not host:port (IPv6 needs [addr]:port)");
            }
            host = endpoint.substring(0, colon);
            port = endpoint.substring(colon + 1);
        }
        try {
            int p = Integer.parseInt(port);
            if (p < 1 || p > 65535) {
                throw new NumberFormatException();
            }
            return InetSocketAddress.createUnresolved(host, p);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("endpoint '" + endpoint + "' has a bad port '" + port + "'");
        }
    }
}
