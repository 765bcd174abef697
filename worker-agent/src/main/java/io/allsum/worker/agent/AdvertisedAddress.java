package io.allsum.worker.agent;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The address this worker's ring endpoint tells its peers to dial. Host names are avoided (clusters often lack
 * reliable DNS for compute nodes); the choice, first that applies:
 * <ol>
 *   <li>{@code allsum.worker.ring-advertise-host}, as given;</li>
 *   <li>the bind address, when the ring listens on one address only;</li>
 *   <li>the address of {@code allsum.worker.ring-interface} (like NCCL_SOCKET_IFNAME);</li>
 *   <li>the local address inside {@code allsum.worker.ring-cidr};</li>
 *   <li>the source address of the route to the rendezvous server (a UDP socket "connected" to it: no packet is
 *       sent), since the hosts that reach the server are the ones that reach each other. Loopback only when the
 *       server itself is on loopback (a single-host group).</li>
 * </ol>
 * An interface or CIDR that matches nothing fails start-up, naming what the host has.
 */
public final class AdvertisedAddress {

    private static final Logger log = LoggerFactory.getLogger(AdvertisedAddress.class);

    private AdvertisedAddress() {
    }

    /** The address to advertise, and how it was chosen (logged once at start-up). */
    public record Choice(String host, String reason) {
    }

    public static Choice choose(String advertiseHost, String bindHost, URI server, String ringInterface,
                                String ringCidr) {
        if (advertiseHost != null && !advertiseHost.isBlank()) {
            return new Choice(advertiseHost.strip(), "allsum.worker.ring-advertise-host");
        }
        if (bindHost != null && !isWildcard(bindHost)) {
            return new Choice(bindHost, "allsum.worker.ring-bind-host");
        }
        if (ringInterface != null && !ringInterface.isBlank()) {
            return new Choice(interfaceAddress(ringInterface.strip()).getHostAddress(),
                    "allsum.worker.ring-interface=" + ringInterface.strip());
        }
        if (ringCidr != null && !ringCidr.isBlank()) {
            return new Choice(cidrAddress(ringCidr.strip()).getHostAddress(),
                    "allsum.worker.ring-cidr=" + ringCidr.strip());
        }
        return routeTo(server);
    }

    static boolean isWildcard(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    }

    /** The source address the kernel would use towards the server. */
    static Choice routeTo(URI server) {
        String host = server.getHost();
        int port = server.getPort() > 0 ? server.getPort() : 80;
        InetAddress target;
        try {
            target = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            InetAddress fallback = firstUsableAddress().orElseThrow(() -> new IllegalStateException(
                    "cannot choose the ring address: the server host '" + host + "' does not resolve and this host"
                            + " has no non-loopback address; set allsum.worker.ring-advertise-host"));
            log.warn("Server host '{}' does not resolve; advertising {}, the first non-loopback address", host,
                    fallback.getHostAddress());
            return new Choice(fallback.getHostAddress(), "first non-loopback address (server host unresolved)");
        }
        if (target.isLoopbackAddress()) {
            return new Choice(target.getHostAddress(), "server on loopback: a single-host group");
        }
        try (DatagramSocket probe = new DatagramSocket()) {
            probe.connect(new InetSocketAddress(target, port));
            InetAddress local = probe.getLocalAddress();
            if (local != null && !local.isAnyLocalAddress() && !local.isLoopbackAddress()) {
                return new Choice(local.getHostAddress(), "route to the server " + target.getHostAddress());
            }
            if (local != null && local.isLoopbackAddress()) {
                // The server's address is one of this host's own: peers on other hosts dial the same one.
                return new Choice(target.getHostAddress(), "the server's address is local");
            }
        } catch (IOException e) {
            log.debug("No route to the server {}: {}", target, e.toString());
        }
        InetAddress fallback = firstUsableAddress().orElseThrow(() -> new IllegalStateException(
                "cannot choose the ring address: no route to the server " + target.getHostAddress()
                        + " and no non-loopback address; set allsum.worker.ring-advertise-host"));
        return new Choice(fallback.getHostAddress(), "first non-loopback address (no route to the server)");
    }

    static InetAddress interfaceAddress(String name) {
        try {
            NetworkInterface nic = NetworkInterface.getByName(name);
            if (nic == null) {
                throw new IllegalArgumentException("allsum.worker.ring-interface=" + name + ": no such interface;"
                        + " this host has " + interfaceSummary());
            }
            return preferIpv4(nic.inetAddresses().filter(a -> !a.isLinkLocalAddress()).toList())
                    .orElseThrow(() -> new IllegalArgumentException("allsum.worker.ring-interface=" + name
                            + " has no usable address; this host has " + interfaceSummary()));
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
    }

    static InetAddress cidrAddress(String cidr) {
        Cidr range = Cidr.parse(cidr);
        return allAddresses().stream().filter(range::contains).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("allsum.worker.ring-cidr=" + cidr
                        + ": no local address inside it; this host has " + interfaceSummary()));
    }

    private static Optional<InetAddress> firstUsableAddress() {
        return preferIpv4(allAddresses().stream()
                .filter(a -> !a.isLoopbackAddress() && !a.isLinkLocalAddress() && !a.isAnyLocalAddress()).toList());
    }

    private static Optional<InetAddress> preferIpv4(List<InetAddress> addresses) {
        return addresses.stream().min(Comparator.comparing(a -> a instanceof Inet4Address ? 0 : 1));
    }

    private static List<InetAddress> allAddresses() {
        List<InetAddress> out = new ArrayList<>();
        try {
            NetworkInterface.networkInterfaces().filter(AdvertisedAddress::isUp)
                    .forEach(nic -> nic.inetAddresses().forEach(out::add));
        } catch (SocketException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    private static boolean isUp(NetworkInterface nic) {
        try {
            return nic.isUp();
        } catch (SocketException e) {
            return false;
        }
    }

    /** "eth0 [10.0.0.2], lo [127.0.0.1]": what an error message shows. */
    static String interfaceSummary() {
        try {
            List<String> parts = new ArrayList<>();
            NetworkInterface.networkInterfaces().forEach(nic -> parts.add(nic.getName() + " "
                    + nic.inetAddresses().map(InetAddress::getHostAddress).toList()));
            return String.join(", ", parts);
        } catch (SocketException e) {
            return "(interfaces unreadable: " + e.getMessage() + ")";
        }
    }

    /** An IPv4 or IPv6 subnet, e.g. 10.0.0.0/8. */
    record Cidr(byte[] network, int prefix) {

        static Cidr parse(String text) {
            int slash = text.indexOf('/');
            try {
                if (slash < 0) {
                    throw new IllegalArgumentException("no /prefix");
                }
                String literal = text.substring(0, slash);
                if (!literal.matches("[0-9.]+|[0-9a-fA-F:]+")) {
                    throw new IllegalArgumentException("not an address literal");
                }
                byte[] network = InetAddress.getByName(literal).getAddress();
                int prefix = Integer.parseInt(text.substring(slash + 1));
                if (prefix < 0 || prefix > network.length * 8) {
                    throw new IllegalArgumentException("prefix out of range");
                }
                return new Cidr(network, prefix);
            } catch (IllegalArgumentException | UnknownHostException e) {
                throw new IllegalArgumentException("allsum.worker.ring-cidr must look like 10.0.0.0/8, was '" + text
                        + "' (" + e.getMessage() + ")");
            }
        }

        boolean contains(InetAddress address) {
            byte[] a = address.getAddress();
            if (a.length != network.length) {
                return false;
            }
            for (int bit = 0; bit < prefix; bit++) {
                int mask = 0x80 >> (bit % 8);
                if ((a[bit / 8] & mask) != (network[bit / 8] & mask)) {
                    return false;
                }
            }
            return true;
        }
    }
}
