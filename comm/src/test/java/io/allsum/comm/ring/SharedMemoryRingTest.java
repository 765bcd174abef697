package io.allsum.comm.ring;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.PeerFailedException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The same-host shared-memory path: the ring itself, its negotiation and fallbacks, and failures while it waits. */
class SharedMemoryRingTest {

    static final RingSettings SETTINGS = RingSettings.DEFAULTS.withIoTimeout(Duration.ofSeconds(30));

    @TempDir
    Path dir;

    @Test
    void aHostsRingsShrinkToTheBudgetAndTheHostUsesTcpWhereEvenTheLeastWouldNotFit() {
        long four = 4L << 20;
        assertThat(SharedMemoryOffer.ringBytes(4, four)).as("12 rings of 4 MiB fit").isEqualTo(four);
        assertThat(SharedMemoryOffer.ringBytes(16, four)).as("240 rings share 256 MiB").isEqualTo((256L << 20) / 240);
        assertThat(SharedMemoryOffer.ringBytes(24, four)).as("never below 1 MiB").isEqualTo(1L << 20);
        assertThat(SharedMemoryOffer.ringBytes(33, four)).as("33 x 32 MiB > 1 GiB: all TCP").isZero();
        assertThat(SharedMemoryOffer.ringBytes(4, 1000)).as("a smaller setting stays").isEqualTo(1000);
    }

    @Test
    void bytesWrapAroundTheRingInOrderAndTheCountersBoundWhatEachEndMayTouch() throws IOException {
        try (Arena arena = Arena.ofConfined();
             ShmRing out = ShmRing.create(dir, 100);
             ShmRing in = ShmRing.open(dir, out.path, out.token, 100)) {
            assertThat(Files.getPosixFilePermissions(out.path)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            MemorySegment src = arena.allocate(1000);
            MemorySegment dst = arena.allocate(1000);
            for (int i = 0; i < 1000; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + 3));
            }
            long sent = 0;
            long received = 0;
            long[] pieces = {30, 70, 1, 99, 64, 36, 100, 17};
            for (int round = 0; sent < 1000; round++) {
                long n = Math.min(Math.min(pieces[round % pieces.length], out.free()), 1000 - sent);
                out.put(src, sent, n);
                sent += n;
                assertThat(in.available()).isEqualTo(sent - received);
                assertThat(out.free()).isEqualTo(100 - (sent - received));
                long take = Math.min(in.available(), pieces[(round + 3) % pieces.length]);
                in.take(dst, received, take);
                received += take;
            }
            in.take(dst, received, in.available());
            assertThat(dst.asByteBuffer()).isEqualTo(src.asByteBuffer());
            assertThat(out.free()).isEqualTo(100);
            out.unlink();
            assertThat(out.path).doesNotExist();
        }
    }

    @Test
    void openingRefusesAnotherTokenCapacityPlaceOrAMissingFile() throws IOException {
        try (ShmRing out = ShmRing.create(dir, 4096)) {
            byte[] wrong = out.token.clone();
            wrong[0] ^= 1;
            assertThatThrownBy(() -> ShmRing.open(dir, out.path, wrong, 4096)).hasMessageContaining("token");
            assertThatThrownBy(() -> ShmRing.open(dir, out.path, out.token, 8192)).hasMessageContaining("bytes");
            assertThatThrownBy(() -> ShmRing.open(dir.resolve("elsewhere"), out.path, out.token, 4096))
                    .hasMessageContaining("is not an allsum ring in");
            assertThatThrownBy(() -> ShmRing.open(dir, dir.resolve("allsum-ring-gone.shm"), out.token, 4096))
                    .hasMessageContaining("not a regular file");
        }
        assertThatThrownBy(() -> ShmRing.create(dir.resolve("missing"), 4096)).isInstanceOf(IOException.class);
    }

    @Test
    void offersBothWaysAreAcceptedAndTheFilesUnlinked() throws Exception {
        Negotiated both = negotiatePair(true, dir, true, dir);
        try {
            assertThat(both.a.out()[1]).isNotNull();
            assertThat(both.a.in()[1]).isNotNull();
            assertThat(both.b.out()[0]).isNotNull();
            assertThat(both.b.in()[0]).isNotNull();
            assertThat(both.a.out()[1].token).isEqualTo(both.b.in()[0].token);
            try (var files = Files.list(dir)) {
                assertThat(files).as("unlinked once both ends mapped them").isEmpty();
            }
        } finally {
            both.close();
        }
    }

    @Test
    void aRingThePeerCannotOpenOrCreateOrThatIsSwitchedOffLeavesThatDirectionOnTcp() throws Exception {
        Path other = Files.createDirectory(dir.resolve("other"));
        // a accepts only rings in dir, b only in other: each declines the other's offer
        Negotiated apart = negotiatePair(true, dir, true, other);
        assertThat(List.of(apart.a.out()[1] == null, apart.a.in()[1] == null, apart.b.out()[0] == null,
                apart.b.in()[0] == null)).containsOnly(true);
        apart.close();
        // b cannot create its ring (no such directory, as with a full /dev/shm): it offers none
        Negotiated none = negotiatePair(true, dir, true, dir.resolve("missing"));
        assertThat(none.b.out()[0]).isNull();
        assertThat(none.a.in()[1]).isNull();
        none.close();
        // b has it switched off: it answers and declines, a falls back
        Negotiated off = negotiatePair(true, dir, false, dir);
        assertThat(List.of(off.a.out()[1] == null, off.a.in()[1] == null, off.b.out()[0] == null,
                off.b.in()[0] == null)).containsOnly(true);
        off.close();
        try (var files = Files.list(dir)) {
            assertThat(files.filter(Files::isRegularFile)).as("declined rings are unlinked too").isEmpty();
        }
    }

    @Test
    void anOfferWhoseFileDoesNotHoldItsTokenIsDeclined() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel peer = SocketChannel.open(server.getLocalAddress());
             SocketChannel own = server.accept();
             ShmRing forged = ShmRing.create(dir, 4096)) {
            CompletableFuture<SharedMemoryOffer.Rings> a = CompletableFuture.supplyAsync(() -> negotiate(own, 0, true,
                    dir));
            peer.socket().setSoTimeout(10_000);
            var in = new java.io.DataInputStream(peer.socket().getInputStream());
            assertThat(in.readInt()).isEqualTo(SharedMemoryOffer.MAGIC);
            assertThat(in.readByte()).isEqualTo(SharedMemoryOffer.OFFER);
            in.readFully(new byte[ShmRing.TOKEN_BYTES + 8]);
            in.readFully(new byte[in.readShort()]);
            // an offer naming a real ring file, with a token the file does not hold
            byte[] path = forged.path.toString().getBytes(StandardCharsets.UTF_8);
            byte[] token = forged.token.clone();
            token[5] ^= 0x40;
            peer.write(ByteBuffer.allocate(4 + 1 + 16 + 8 + 2 + path.length).putInt(SharedMemoryOffer.MAGIC)
                    .put(SharedMemoryOffer.OFFER).put(token).putLong(4096).putShort((short) path.length).put(path)
                    .flip());
            assertThat(in.readInt()).isEqualTo(SharedMemoryOffer.MAGIC);
            assertThat(in.readByte()).as("the answer to the forged offer").isEqualTo(SharedMemoryOffer.DECLINE);
            peer.write(SharedMemoryOffer.reply(SharedMemoryOffer.DECLINE));
            SharedMemoryOffer.Rings rings = a.get(30, TimeUnit.SECONDS);
            assertThat(rings.in()[1]).isNull();
            assertThat(rings.out()[1]).isNull();
        }
    }

    @Test
    void ranksOfOneHostShareMemoryAndRanksOfDifferentHostsOrSettingsKeepTcp() {
        try (RingCluster one = new RingCluster(3, SETTINGS).start(1)) {
            one.assertSharedMemoryLinks(2);
            one.assertSumOfRanks();
        }
        // 127.0.0.2 is loopback too, but another endpoint host: as for ranks in another network namespace
        try (RingCluster apart = new RingCluster(List.of(RingCommunicatorFactory.loopback(SETTINGS),
                new RingCommunicatorFactory("127.0.0.2", "127.0.0.2", 0, SETTINGS)), "two-hosts").start(1)) {
            apart.assertSharedMemoryLinks(0);
            apart.assertSumOfRanks();
        }
        try (RingCluster mixed = new RingCluster(List.of(RingCommunicatorFactory.loopback(SETTINGS),
                RingCommunicatorFactory.loopback(SETTINGS.withSharedMemory(false)),
                RingCommunicatorFactory.loopback(SETTINGS)), "mixed").start(1)) {
            RingCommunicator r0 = (RingCommunicator) mixed.comms.get(0);
            assertThat(r0.sharedMemoryLinks(true)).as("rank 0 to rank 2 only").isEqualTo(1);
            assertThat(((RingCommunicator) mixed.comms.get(1)).sharedMemoryLinks(false)).isZero();
            mixed.assertSumOfRanks();
        }
    }

    @Test
    void payloadsLargerThanTheRingGoInPieces() {
        RingSettings small = SETTINGS.withChunkBytes(64 << 10).withSharedMemoryBytes(5000);
        try (RingCluster cluster = new RingCluster(3, small).start(1)) {
            cluster.assertSharedMemoryLinks(2);
            long count = 300_001; // 1.2 MB of float32: 64 KiB chunks through a ring of 5000 bytes
            List<ByteBuffer> results = cluster.onEveryRank(r -> {
                Communicator comm = cluster.comms.get(r);
                try (CommBuffer buf = RingCollectivesTest.filled(comm, DataType.FLOAT32, count, r, ReduceOp.SUM, 0);
                     CommBuffer received = comm.allocate(count * 4)) {
                    comm.allReduce(buf, buf, count, DataType.FLOAT32, ReduceOp.SUM);
                    if (r == 0) {
                        comm.send(buf, count, DataType.FLOAT32, 1);
                    } else if (r == 1) {
                        comm.recv(received, count, DataType.FLOAT32, 0); // rank 0's result, through the ring
                        return RingCollectivesTest.read(received);
                    }
                    return RingCollectivesTest.read(buf);
                }
            });
            for (int r = 0; r < 3; r++) {
                RingCollectivesTest.assertElements(results.get(r).order(ByteOrder.LITTLE_ENDIAN), DataType.FLOAT32,
                        count, i -> RingCollectivesTest.expected(DataType.FLOAT32, ReduceOp.SUM, 3, i), "rank " + r);
            }
            cluster.assertSumOfRanks();
        }
    }

    @Test
    void aPeerThatGoesAwayWhileTheWriterWaitsForRingSpaceFailsTheSendNamingItLongBeforeTheTimeout() {
        RingSettings small = SETTINGS.withChunkBytes(64 << 10).withSharedMemoryBytes(128 << 10);
        try (RingCluster cluster = new RingCluster(2, small).start(1)) {
            cluster.assertSharedMemoryLinks(1);
            Communicator sender = cluster.comms.get(0);
            String peerEndpoint = cluster.factories.get(1).endpoint();
            CompletableFuture<Void> closer = CompletableFuture.runAsync(() -> {
                sleep(300); // rank 1 never receives: rank 0's writer fills the ring and waits for space
                cluster.comms.get(1).abort();
            });
            long start = System.nanoTime();
            try (CommBuffer buf = sender.allocate(8L << 20)) {
                assertThatThrownBy(() -> sender.send(buf, 2L << 20, DataType.FLOAT32, 1))
                        .isInstanceOfSatisfying(PeerFailedException.class, e -> {
                            assertThat(e.peerRank()).isEqualTo(1);
                            assertThat(e.getMessage()).contains(peerEndpoint).doesNotContain("accepted no data");
                        });
            }
            long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
            assertThat(seconds).as("noticed by the writer's NOOP, not by the 30 s io timeout").isLessThan(15);
            closer.join();
        }
    }

    // ---------------------------------------------------------------- helpers

    private record Negotiated(SharedMemoryOffer.Rings a, SharedMemoryOffer.Rings b) {
        void close() {
            a.closeAll();
            b.closeAll();
        }
    }

    /** Ranks 0 (a) and 1 (b) of one host negotiate over a real connection, each with its own setting and place. */
    private static Negotiated negotiatePair(boolean aEnabled, Path aDir, boolean bEnabled, Path bDir)
            throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel toB = SocketChannel.open(server.getLocalAddress());
             SocketChannel toA = server.accept()) {
            CompletableFuture<SharedMemoryOffer.Rings> a = CompletableFuture.supplyAsync(() -> negotiate(toB, 0,
                    aEnabled, aDir));
            SharedMemoryOffer.Rings b = negotiate(toA, 1, bEnabled, bDir);
            return new Negotiated(a.get(30, TimeUnit.SECONDS), b);
        }
    }

    private static SharedMemoryOffer.Rings negotiate(SocketChannel toPeer, int rank, boolean enabled, Path dir) {
        SocketChannel[] channels = new SocketChannel[2];
        channels[1 - rank] = toPeer;
        return SharedMemoryOffer.negotiate(channels, rank, List.of("127.0.0.1:1", "127.0.0.1:2"), enabled, dir,
                4096, System.nanoTime() + TimeUnit.SECONDS.toNanos(20), "test");
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
