package io.allsum.worker.it;

import org.junit.jupiter.api.Assumptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Several "hosts" on one machine: a network namespace each, all cabled to a bridge that lives in a "switch"
 * namespace, plus one veth from the test's own namespace to the bridge so the test reaches every host over HTTP.
 * Host i has address {@code 10.A.B.(i+1)}, the test {@code 10.A.B.254} (A.B random, so that concurrent runs on one
 * machine do not share a route). Cutting host i off is {@code ip link set down} on its switch port.
 * Needs root and iproute2 ({@code ip}); {@link #createOrSkip} skips the test, with the reason, where they are absent.
 */
final class NetnsHosts implements AutoCloseable {

    private final String id;
    private final String subnet;
    private final String switchNs;
    private final List<String> hosts = new ArrayList<>();
    private final String rootLink;

    private NetnsHosts(String id, String subnet) {
        this.id = id;
        this.subnet = subnet;
        this.switchNs = "as" + id + "-sw";
        this.rootLink = "as" + id + "r";
    }

    /** Makes {@code count} hosts, or skips the calling test naming why namespaces cannot be made here. */
    static NetnsHosts createOrSkip(int count) throws IOException, InterruptedException {
        Assumptions.assumeTrue(System.getProperty("os.name").startsWith("Linux"), "network namespaces need Linux");
        Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/sbin/ip")) || Files.isExecutable(Path.of("/sbin/ip"))
                || Files.isExecutable(Path.of("/usr/bin/ip")), "iproute2's ip is not installed (apt-get install iproute2)");
        String id = Long.toString(ProcessHandle.current().pid() % 46656, 36) + ThreadLocalRandom.current().nextInt(10);
        ThreadLocalRandom r = ThreadLocalRandom.current();
        NetnsHosts net = new NetnsHosts(id, "10." + r.nextInt(100, 250) + "." + r.nextInt(1, 250));
        Result probe = run("ip", "netns", "add", net.switchNs);
        Assumptions.assumeTrue(probe.ok(), "cannot create a network namespace here (needs root or CAP_SYS_ADMIN): "
                + probe.output().strip());
        try {
            net.build(count);
        } catch (IOException | RuntimeException e) {
            net.close();
            throw e;
        }
        return net;
    }

    private void build(int count) throws IOException, InterruptedException {
        must("ip", "-n", switchNs, "link", "set", "lo", "up");
        must("ip", "-n", switchNs, "link", "add", "br0", "type", "bridge");
        must("ip", "-n", switchNs, "link", "set", "br0", "up");
        for (int i = 0; i < count; i++) {
            String ns = "as" + id + "-h" + i;
            must("ip", "netns", "add", ns);
            hosts.add(ns);
            must("ip", "-n", ns, "link", "set", "lo", "up");
            must("ip", "-n", switchNs, "link", "add", port(i), "type", "veth", "peer", "name", "eth0", "netns", ns);
            must("ip", "-n", switchNs, "link", "set", port(i), "master", "br0", "up");
            must("ip", "-n", ns, "addr", "add", address(i) + "/24", "dev", "eth0");
            must("ip", "-n", ns, "link", "set", "eth0", "up");
        }
        must("ip", "link", "add", rootLink, "type", "veth", "peer", "name", "up0", "netns", switchNs);
        must("ip", "-n", switchNs, "link", "set", "up0", "master", "br0", "up");
        must("ip", "addr", "add", subnet + ".254/24", "dev", rootLink);
        must("ip", "link", "set", rootLink, "up");
    }

    /** The switch port of host i. */
    private static String port(int i) {
        return "p" + i;
    }

    String address(int host) {
        return subnet + "." + (host + 1);
    }

    /** An address in the hosts' subnet that no host has. */
    String unusedAddress() {
        return subnet + ".200";
    }

    String namespace(int host) {
        return hosts.get(host);
    }

    /** The command run inside host i's namespace. */
    List<String> inHost(int host, List<String> command) {
        List<String> full = new ArrayList<>(List.of("ip", "netns", "exec", namespace(host)));
        full.addAll(command);
        return full;
    }

    /** Unplugs (false) or plugs back (true) host i's cable at the switch: both directions stop at once. */
    void link(int host, boolean up) throws IOException, InterruptedException {
        must("ip", "-n", switchNs, "link", "set", port(host), up ? "up" : "down");
    }

    /**
     * Makes host i's outgoing link slow: 50 ms of added delay with tc netem where the kernel has sch_netem, else a
     * 20 Mbit/s token bucket (tbf) with up to 400 ms of queueing. What was applied, or null when tc can do neither.
     */
    String slowDown(int host) throws IOException, InterruptedException {
        return slowDown(host, "20mbit");
    }

    /** As {@link #slowDown(int)}, with {@code rate} for the token bucket. */
    String slowDown(int host, String rate) throws IOException, InterruptedException {
        if (run("ip", "netns", "exec", namespace(host), "tc", "qdisc", "replace", "dev", "eth0", "root", "netem",
                "delay", "50ms").ok()) {
            return "tc netem delay 50ms";
        }
        if (run("ip", "netns", "exec", namespace(host), "tc", "qdisc", "replace", "dev", "eth0", "root", "tbf",
                "rate", rate, "burst", "32kbit", "latency", "400ms").ok()) {
            return "tc tbf rate " + rate + " latency 400ms (no sch_netem in this kernel)";
        }
        return null;
    }

    /** Removes what {@link #slowDown} added. */
    void restoreSpeed(int host) throws IOException, InterruptedException {
        run("ip", "netns", "exec", namespace(host), "tc", "qdisc", "del", "dev", "eth0", "root");
    }

    /**
     * Drops {@code probability} of the packets on host i's cable, both ways, as a bad cable or NIC does: iptables'
     * statistic match on its INPUT from the wire and on every other host's INPUT from it. What was applied, or null
     * where iptables (or its statistic match) is missing; {@link #stopDropping} removes it.
     */
    String dropPackets(int host, double probability) throws IOException, InterruptedException {
        String p = Double.toString(probability);
        for (String iptables : List.of("iptables", "iptables-legacy")) {
            if (run("ip", "netns", "exec", namespace(host), iptables, "-A", "INPUT", "-i", "eth0", "-m", "statistic",
                    "--mode", "random", "--probability", p, "-j", "DROP").ok()) {
                dropping = iptables;
                for (int other = 0; other < hosts.size(); other++) {
                    if (other != host) {
                        must("ip", "netns", "exec", namespace(other), iptables, "-A", "INPUT", "-s", address(host),
                                "-m", "statistic", "--mode", "random", "--probability", p, "-j", "DROP");
                    }
                }
                return iptables + " statistic --probability " + p + " on INPUT, both ways";
            }
        }
        return null;
    }

    private String dropping;

    /** Removes every rule {@link #dropPackets} added, on every host. */
    void stopDropping() throws IOException, InterruptedException {
        if (dropping != null) {
            for (int i = 0; i < hosts.size(); i++) {
                run("ip", "netns", "exec", namespace(i), dropping, "-F", "INPUT");
            }
        }
    }

    @Override
    public void close() throws IOException, InterruptedException {
        run("ip", "link", "del", rootLink);
        for (String ns : hosts) {
            run("ip", "netns", "del", ns);
        }
        run("ip", "netns", "del", switchNs);
    }

    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    static Result run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Result(-1, String.join(" ", command) + ": timed out");
        }
        return new Result(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    private static void must(String... command) throws IOException, InterruptedException {
        Result r = run(command);
        if (!r.ok()) {
            throw new IOException(String.join(" ", command) + " failed (" + r.exitCode() + "): " + r.output().strip());
        }
    }
}
