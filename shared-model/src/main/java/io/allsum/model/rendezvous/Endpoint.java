package io.allsum.model.rendezvous;

import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A rank's ring endpoint as the protocol writes it: {@code host:port}, {@code ipv4:port} or {@code [ipv6]:port}
 * (docs/protocol.md). The one reading of that syntax: the server's validation, the ring and the worker use it.
 * {@link #host()} holds an IPv6 literal without its brackets.
 */
public record Endpoint(String host, int port) {

    private static final int MAX_LENGTH = 256;
    private static final Pattern HOST_NAME = Pattern.compile(
            "(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\\.?");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    public Endpoint {
        Objects.requireNonNull(host, "host");
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be from 1 to 65535, got " + port);
        }
    }

    /**
     * {@code endpoint} read without any name lookup.
     *
     * @throws IllegalArgumentException saying what is wrong with it ("endpoint must be host:port, got 'x'")
     */
    public static Endpoint parse(String endpoint) {
        Read read = read(endpoint);
        if (read.problem() != null) {
            throw new IllegalArgumentException("endpoint " + read.problem());
        }
        return read.endpoint();
    }

    /** {@code endpoint} read, or empty when it is not one. */
    public static Optional<Endpoint> tryParse(String endpoint) {
        return Optional.ofNullable(read(endpoint).endpoint());
    }

    /** Why {@code endpoint} is not one, as a violation of the field says it ("must be host:port, ..."); null when it is. */
    public static String problem(String endpoint) {
        return read(endpoint).problem();
    }

    /** {@code host:port}, with an IPv6 literal put in brackets. */
    public static String format(String host, int port) {
        boolean ipv6Literal = host.indexOf(':') >= 0 && !host.startsWith("[");
        return (ipv6Literal ? "[" + host + "]" : host) + ":" + port;
    }

    @Override
    public String toString() {
        return format(host, port);
    }

    /** Exactly one of the two is set. */
    private record Read(Endpoint endpoint, String problem) {
        static Read problem(String problem) {
            return new Read(null, problem);
        }
    }

    private static Read read(String endpoint) {
        if (endpoint == null || endpoint.isEmpty()) {
            return Read.problem("is required (host:port)");
        }
        if (endpoint.length() > MAX_LENGTH) {
            return Read.problem("must be at most " + MAX_LENGTH + " characters");
        }
        String host;
        String port;
        if (endpoint.startsWith("[")) {
            int close = endpoint.indexOf(']');
            if (close < 0 || close + 1 >= endpoint.length() || endpoint.charAt(close + 1) != ':') {
                return Read.problem("must be [ipv6]:port, got '" + endpoint + "'");
            }
            host = endpoint.substring(1, close);
            port = endpoint.substring(close + 2);
            if (!isIpv6Literal(host)) {
                return Read.problem("has an invalid IPv6 address '" + host + "'");
            }
        } else {
            int colon = endpoint.lastIndexOf(':');
            if (colon < 0) {
                return Read.problem("must be host:port, got '" + endpoint + "'");
            }
            host = endpoint.substring(0, colon);
            port = endpoint.substring(colon + 1);
            if (host.indexOf(':') >= 0) {
                return Read.problem("must put an IPv6 address in brackets, as [addr]:port, got '" + endpoint + "'");
            }
            if (!HOST_NAME.matcher(host).matches()) {
                return Read.problem("has an invalid host '" + host + "'");
            }
        }
        if (!PORT.matcher(port).matches() || Integer.parseInt(port) < 1 || Integer.parseInt(port) > 65535) {
            return Read.problem("must end in a port from 1 to 65535, got '" + port + "'");
        }
        return new Read(new Endpoint(host, Integer.parseInt(port)), null);
    }

    private static boolean isIpv6Literal(String host) {
        if (host.isEmpty() || host.indexOf(':') < 0) {
            return false;
        }
        try {
            // ofLiteral parses without any name lookup.
            return InetAddress.ofLiteral(host) != null;
        } catch (IllegalArgumentException notALiteral) {
            return false;
        }
    }
}
