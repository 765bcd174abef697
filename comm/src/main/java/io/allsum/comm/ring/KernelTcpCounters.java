package io.allsum.comm.ring;

import io.allsum.comm.TcpCounts;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The kernel's own counters for this network namespace's TCP connections, as {@code ss -ti} reads them: one Linux
 * sock_diag dump (netlink), each connection's segments sent, retransmitted and reported back as duplicates. A lossy
 * link shows here even when its retransmissions are too rare or too quick to slow a timed exchange. Empty where the
 * kernel does not say.
 */
final class KernelTcpCounters {

    /** A connection as this end sees it; addresses are IPv4 where the socket holds a v4-mapped IPv6 address. */
    record Connection(InetAddress local, int localPort, InetAddress remote, int remotePort) {

        static Connection of(InetSocketAddress local, InetSocketAddress remote) {
            return new Connection(unmapped(local.getAddress()), local.getPort(), unmapped(remote.getAddress()),
                    remote.getPort());
        }
    }

    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int AF_NETLINK = 16;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_CLOEXEC = 0x80000;
    private static final int NETLINK_SOCK_DIAG = 4;
    private static final int SOCK_DIAG_BY_FAMILY = 20;
    private static final int NLM_F_REQUEST = 1;
    private static final int NLM_F_DUMP = 0x300;
    private static final int NLMSG_ERROR = 2;
    private static final int NLMSG_DONE = 3;
    private static final int IPPROTO_TCP = 6;
    private static final int INET_DIAG_INFO = 2;
    private static final int SOL_SOCKET = 1;
    private static final int SO_RCVTIMEO = 20;
    /** struct inet_diag_msg; tcp_info's tcpi_total_retrans and tcpi_segs_out (Linux 4.2 and later). */
    private static final int DIAG_MSG_BYTES = 72;
    private static final int TOTAL_RETRANS_OFFSET = 100;
    private static final int SEGS_OUT_OFFSET = 136;
    /** tcpi_dsack_dups (Linux 4.19 and later): DSACKs received, each a segment the peer got twice. */
    private static final int DSACK_DUPS_OFFSET = 216;
    private static final int RECEIVE_BYTES = 64 * 1024;
    /** A dump is answered in microseconds; this bounds a kernel that does not answer at all. */
    private static final long RECEIVE_TIMEOUT_SECONDS = 2;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfShort BE16 = U16.withOrder(ByteOrder.BIG_ENDIAN);

    private static final Native NATIVE = Native.load();

    private KernelTcpCounters() {
    }

    /** Every TCP connection of this namespace with its counters, or empty where the kernel cannot be asked. */
    static Optional<Map<Connection, TcpCounts>> read() {
        if (NATIVE == null) {
            return Optional.empty();
        }
        try {
            Map<Connection, TcpCounts> out = new HashMap<>();
            if (!dump(AF_INET, out) || !dump(AF_INET6, out)) {
                return Optional.empty();
            }
            return Optional.of(out);
        } catch (Throwable e) {
            return Optional.empty(); // counters are evidence, never a reason for a collective to fail
        }
    }

    private static boolean dump(int family, Map<Connection, TcpCounts> out) throws Throwable {
        int fd = (int) NATIVE.socket.invokeExact(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
        if (fd < 0) {
            return false;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment timeout = arena.allocate(16);
            timeout.set(JAVA_LONG, 0, RECEIVE_TIMEOUT_SECONDS);
            int set = (int) NATIVE.setsockopt.invokeExact(fd, SOL_SOCKET, SO_RCVTIMEO, timeout, 16);
            if (set != 0) {
                return false;
            }
            MemorySegment request = arena.allocate(16 + 56);
            request.set(U32, 0, (int) request.byteSize());
            request.set(U16, 4, (short) SOCK_DIAG_BY_FAMILY);
            request.set(U16, 6, (short) (NLM_F_REQUEST | NLM_F_DUMP));
            request.set(U32, 8, 1);
            request.set(ValueLayout.JAVA_BYTE, 16, (byte) family);
            request.set(ValueLayout.JAVA_BYTE, 17, (byte) IPPROTO_TCP);
            request.set(ValueLayout.JAVA_BYTE, 18, (byte) (1 << (INET_DIAG_INFO - 1)));
            request.set(U32, 20, -1); // every state
            long sent = (long) NATIVE.send.invokeExact(fd, request, request.byteSize(), 0);
            if (sent != request.byteSize()) {
                return false;
            }
            MemorySegment buffer = arena.allocate(RECEIVE_BYTES);
            while (true) {
                long got = (long) NATIVE.recv.invokeExact(fd, buffer, (long) RECEIVE_BYTES, 0);
                if (got <= 0) {
                    return false; // an error or the receive timeout: no complete dump
                }
                for (long at = 0; at + 16 <= got; ) {
                    int length = buffer.get(U32, at);
                    int type = Short.toUnsignedInt(buffer.get(U16, at + 4));
                    if (type == NLMSG_DONE) {
                        return true;
                    }
                    if (type == NLMSG_ERROR || length < 16 || at + length > got) {
                        return false;
                    }
                    connection(buffer.asSlice(at + 16, length - 16), out);
                    at += (length + 3) & ~3;
                }
            }
        } finally {
            int ignored = (int) NATIVE.close.invokeExact(fd);
        }
    }

    /** One inet_diag_msg and its attributes; connections whose tcp_info lacks the counters are left out. */
    private static void connection(MemorySegment message, Map<Connection, TcpCounts> out)
            throws UnknownHostException {
        if (message.byteSize() < DIAG_MSG_BYTES) {
            return;
        }
        int family = Byte.toUnsignedInt(message.get(ValueLayout.JAVA_BYTE, 0));
        int addressBytes = family == AF_INET ? 4 : 16;
        int localPort = Short.toUnsignedInt(message.get(BE16, 4));
        int remotePort = Short.toUnsignedInt(message.get(BE16, 6));
        InetAddress local = InetAddress.getByAddress(message.asSlice(8, addressBytes).toArray(ValueLayout.JAVA_BYTE));
        InetAddress remote = InetAddress.getByAddress(message.asSlice(24, addressBytes)
                .toArray(ValueLayout.JAVA_BYTE));
        for (long at = DIAG_MSG_BYTES; at + 4 <= message.byteSize(); ) {
            int length = Short.toUnsignedInt(message.get(U16, at));
            int type = Short.toUnsignedInt(message.get(U16, at + 2));
            if (length < 4 || at + length > message.byteSize()) {
                return;
            }
            if (type == INET_DIAG_INFO && length - 4 >= SEGS_OUT_OFFSET + 4) {
                long retransmits = Integer.toUnsignedLong(message.get(U32, at + 4 + TOTAL_RETRANS_OFFSET));
                long segmentsOut = Integer.toUnsignedLong(message.get(U32, at + 4 + SEGS_OUT_OFFSET));
                long duplicates = length - 4 >= DSACK_DUPS_OFFSET + 4
                        ? Integer.toUnsignedLong(message.get(U32, at + 4 + DSACK_DUPS_OFFSET)) : 0;
                out.put(new Connection(unmapped(local), localPort, unmapped(remote), remotePort),
                        new TcpCounts(segmentsOut, retransmits, duplicates));
            }
            at += (length + 3) & ~3;
        }
    }

    private static InetAddress unmapped(InetAddress address) {
        byte[] raw = address.getAddress();
        if (raw.length == 16) {
            boolean mapped = raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = raw[i] == 0;
            }
            if (mapped) {
                try {
                    return InetAddress.getByAddress(java.util.Arrays.copyOfRange(raw, 12, 16));
                } catch (UnknownHostException impossible) {
                    throw new IllegalStateException(impossible);
                }
            }
        }
        return address;
    }

    /** The libc calls, bound once; null off Linux or where native access is refused. */
    private record Native(MethodHandle socket, MethodHandle setsockopt, MethodHandle send, MethodHandle recv,
                          MethodHandle close) {

        static Native load() {
            if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                return new Native(
                        linker.downcallHandle(libc.find("socket").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT)),
                        linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT)),
                        linker.downcallHandle(libc.find("send").orElseThrow(),
                                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)),
                        linker.downcallHandle(libc.find("recv").orElseThrow(),
                                FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)),
                        linker.downcallHandle(libc.find("close").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT)));
            } catch (RuntimeException | LinkageError e) {
                return null;
            }
        }
    }
}
