package io.allsum.comm.ring;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.CommException;
import io.allsum.comm.Communicator;
import io.allsum.comm.PeerFailedException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/** Ring connections must prove the generation's key before a rank keeps them; failures of idle peers are seen. */
class RingAuthenticationTest {

    static final RingSettings SETTINGS = RingSettings.DEFAULTS.withIoTimeout(Duration.ofSeconds(20))
            .withHandshakeLimits(Duration.ofMillis(500), 64, 32);

    @Test
    void derivedKeysDifferPerGenerationAndGroupAndNeverPrint() {
        String id = RingKey.newUniqueId();
        byte[] nonce = RingKey.nonce();
        RingKey g1 = RingKey.derive(id, "g", 1);
        assertThat(RingKey.derive(id, "g", 1).verify(g1.mac(nonce), nonce)).isTrue();
        assertThat(RingKey.derive(id, "g", 2).verify(g1.mac(nonce), nonce)).isFalse();
        assertThat(RingKey.derive(id, "h", 1).verify(g1.mac(nonce), nonce)).isFalse();
        assertThat(RingKey.derive(RingKey.newUniqueId(), "g", 1).verify(g1.mac(nonce), nonce)).isFalse();
        assertThat(g1.toString()).doesNotContain(id.substring(0, 8)).contains("redacted");
    }

    @Test
    void helloProvedWithTheKeyParsesAndVerifiesAndAnyFlippedBitFailsIt() throws Exception {
        RingKey key = RingKey.derive(RingKey.newUniqueId(), "grp", 7);
        byte[] listenerNonce = RingKey.nonce();
        ByteBuffer wire = new Handshake("grp", 7, "/1:0", 2, 0, 3).encode(key, listenerNonce, RingKey.nonce());
        int length = wire.remaining();
        assertThat(Handshake.expectedLength(wire, length)).isEqualTo(length);
        Handshake.Hello hello = Handshake.parse(wire, length);
        assertThat(hello.handshake()).isEqualTo(new Handshake("grp", 7, "/1:0", 2, 0, 3));
        assertThat(hello.provenWith(key, listenerNonce)).isTrue();
        assertThat(hello.provenWith(key, RingKey.nonce())).as("a replay against another challenge").isFalse();

        ByteBuffer tampered = ByteBuffer.allocate(length).put(wire.duplicate()).flip();
        tampered.put(14, (byte) (tampered.get(14) ^ 1)); // inside the generation
        assertThat(Handshake.parse(tampered, length).provenWith(key, listenerNonce)).isFalse();
    }

    @Test
    void forgedHelloIsRefusedAndClosedAndTheGroupStillForms() throws Exception {
        try (RingCluster cluster = new RingCluster(2, SETTINGS)) {
            cluster.view(1);
            String target = cluster.factories.get(1).endpoint();
            cluster.start(1); // rank 1 now holds generation 1's key
            try (Socket forged = ForgedPeer.hello(target, new Handshake(cluster.group, 1, "", 0, 1, 2))) {
                assertThat(readUntilClosed(forged.getInputStream())).as("a NACK, then the close")
                        .isEqualTo(Handshake.NACK_BYTES);
            }
            RingListener listener = cluster.factories.get(1).listener();
            assertThat(listener.pendingHandshakes()).isZero();
            assertThat(listener.droppedConnections()).isPositive();
            cluster.assertSumOfRanks();
        }
    }

    @Test
    void silentConnectionIsClosedAfterTheHandshakeTimeout() throws Exception {
        try (RingCommunicatorFactory factory = RingCommunicatorFactory.loopback(SETTINGS);
             Socket silent = ForgedPeer.connect(factory.endpoint())) {
            silent.setSoTimeout(15_000); // far above the 500 ms handshake timeout
            assertThat(readUntilClosed(silent.getInputStream())).as("only the challenge, then the close")
                    .isEqualTo(Handshake.CHALLENGE_BYTES);
        }
    }

    @Test
    void floodOfForgedAndSilentConnectionsIsBoundedLeavesNothingBehindAndTheGroupReforms() throws Exception {
        try (RingCluster cluster = new RingCluster(3, SETTINGS)) {
            cluster.start(1);
            cluster.assertSumOfRanks();
            RingListener victim = cluster.factories.get(2).listener();
            String target = cluster.factories.get(2).endpoint();
            long baseline = openDescriptors();
            AtomicInteger maxPending = new AtomicInteger();
            ExecutorService attackers = Executors.newFixedThreadPool(32);
            List<Future<?>> attacks = new ArrayList<>();
            for (int i = 0; i < 4096; i++) {
                int n = i;
                attacks.add(attackers.submit(() -> {
                    maxPending.accumulateAndGet(victim.pendingHandshakes(), Math::max);
                    // a far-future generation, as in the original report, and some that never speak
                    try (Socket s = n % 8 == 0 ? ForgedPeer.connect(target)
                            : ForgedPeer.hello(target, new Handshake(cluster.group, 1000 + n, "", 0, 2, 3))) {
                        s.setSoTimeout(15_000);
                        readUntilClosed(s.getInputStream());
                    } catch (IOException refusedOrReset) {
                        // refusals while the listener is full are part of the test
                    }
                    return null;
                }));
            }
            // the group forms its next generation while the attack goes on
            cluster.start(2);
            cluster.assertSumOfRanks();
            for (Future<?> f : attacks) {
                f.get(120, TimeUnit.SECONDS);
            }
            attackers.shutdown();
            assertThat(maxPending.get()).isLessThanOrEqualTo(SETTINGS.maxPendingHandshakesPerAddress());
            assertThat(victim.droppedConnections()).isGreaterThanOrEqualTo(4096);
            awaitTrue(() -> victim.pendingHandshakes() == 0);
            awaitTrue(() -> openDescriptors() <= baseline + 8);
            cluster.start(3);
            cluster.assertSumOfRanks();
        }
    }

    @Test
    void peerThatDiesWhileIdleIsReportedByItsNeighboursWithoutAnyCollective() throws Exception {
        try (RingCluster cluster = new RingCluster(3, SETTINGS).start(1)) {
            List<CompletableFuture<CommException>> heard = new ArrayList<>();
            for (Communicator c : cluster.comms) {
                CompletableFuture<CommException> f = new CompletableFuture<>();
                c.onFailure(f::complete);
                heard.add(f);
            }
            cluster.comms.get(1).abort(); // what a killed process looks like to its peers: closed sockets
            for (int r : new int[]{0, 2}) {
                CommException e = heard.get(r).get(10, TimeUnit.SECONDS);
                assertThat(e).as("rank " + r).isInstanceOf(PeerFailedException.class);
                assertThat(((PeerFailedException) e).peerRank()).isEqualTo(1);
                assertThat(e.getMessage()).contains("idle");
            }
            try (CommBuffer buf = cluster.comms.get(0).allocate(8)) {
                Communicator survivor = cluster.comms.get(0);
                org.assertj.core.api.Assertions.assertThatThrownBy(
                                () -> survivor.allReduce(buf, buf, 1, DataType.INT64, ReduceOp.SUM))
                        .isInstanceOf(PeerFailedException.class).hasMessageContaining("peer rank 1");
            }
        }
    }

    /** Bytes read until the peer closes (a reset counts as closed). */
    private static int readUntilClosed(InputStream in) throws IOException {
        int total = 0;
        byte[] buf = new byte[256];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                total += n;
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the listener kept the connection open", e);
        } catch (IOException reset) {
            // closed with unread data: the same outcome
        }
        return total;
    }

    private static long openDescriptors() {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("condition not met within 30 s");
            }
            Thread.sleep(50);
        }
    }
}
