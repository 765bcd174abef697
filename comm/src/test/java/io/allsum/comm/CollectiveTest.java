package io.allsum.comm;

import io.allsum.comm.ring.RingCluster;
import io.allsum.comm.ring.RingSettings;
import io.allsum.model.CollectiveOp;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The contract of {@link Collective}: one descriptor per {@link CollectiveOp}, and on the real ring each one's call
 * writes exactly what its output blocks say (every other element of an out-of-place receive buffer untouched).
 */
class CollectiveTest {

    private static final long CANARY = 0x5A5A_5A5A_5A5A_5A5AL;
    private static final int WIDTH = DataType.INT64.bytes();

    @Test
    void everyOpHasExactlyOneDescriptor() {
        assertThat(Arrays.stream(Collective.values()).map(Collective::op))
                .containsExactlyInAnyOrder(CollectiveOp.values());
        for (CollectiveOp op : CollectiveOp.values()) {
            assertThat(Collective.of(op).op()).isEqualTo(op);
        }
    }

    @ParameterizedTest(name = "n={0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void everyDescriptorRunsExactlyAsItSaysOnTheRing(int n) {
        try (RingCluster cluster = new RingCluster(n, RingSettings.DEFAULTS).start(1)) {
            List<String> failures = new ArrayList<>();
            for (Collective collective : Collective.values()) {
                CollectiveOp op = collective.op();
                for (boolean inPlace : op.runsInPlace() ? new boolean[] {false, true} : new boolean[] {false}) {
                    // 7 elements a rank: uneven, so a block misplaced by a share shows.
                    CollectiveOp.Shape shape = op.shape(WIDTH, 7L * WIDTH * n, n);
                    cluster.onEveryRank(r -> runOnRank(cluster.comms.get(r), collective, shape, inPlace, n - 1))
                            .forEach(failures::addAll);
                }
            }
            assertThat(failures).isEmpty();
        }
    }

    /** The wrong elements of one call on this rank, each as a line. */
    private static List<String> runOnRank(Communicator comm, Collective collective, CollectiveOp.Shape shape,
                                          boolean inPlace, int root) {
        int rank = comm.rank();
        long sendBytes = shape.sendElements() * WIDTH;
        long recvBytes = shape.recvElements() * WIDTH;
        long sendSize = inPlace ? Math.max(sendBytes, recvBytes) : sendBytes;
        long recvSize = inPlace ? sendSize : recvBytes;
        Collective.Placement placement = new Collective.Placement(rank, comm.size(), root, shape.count(), inPlace);
        String what = collective + (inPlace ? " in-place" : "") + " n=" + comm.size() + " rank " + rank;
        List<String> wrong = new ArrayList<>();
        try (CommBuffer send = comm.allocate(sendSize);
             CommBuffer recv = inPlace ? send : comm.allocate(recvBytes)) {
            fill(recv, recvBytes, List.of(new Collective.Block(true, 0, shape.recvElements(), 0, 0)), true);
            fill(send, sendSize, collective.inputs(placement), false);
            collective.bind(comm, send, recv, shape.count(), DataType.INT64, ReduceOp.SUM, root).run();
            ByteBuffer got = ByteBuffer.allocateDirect((int) recvSize).order(ByteOrder.LITTLE_ENDIAN);
            recv.copyToHost(got, 0);
            boolean[] covered = new boolean[(int) (recvSize / WIDTH)];
            for (Collective.Block b : collective.outputs(placement)) {
                for (long j = 0; j < b.elements(); j++) {
                    int at = (int) (b.offset() + j);
                    covered[at] = true;
                    long expected = b.source() == Collective.Block.REDUCED
                            ? reduced(comm.size(), b.sourceOffset() + j) : input(b.source(), b.sourceOffset() + j);
                    if (got.getLong(at * WIDTH) != expected) {
                        wrong.add(what + ": element " + at + " is " + got.getLong(at * WIDTH) + ", not " + expected);
                    }
                }
            }
            for (int at = 0; at < covered.length && !inPlace; at++) {
                if (!covered[at] && got.getLong(at * WIDTH) != CANARY) {
                    wrong.add(what + ": element " + at + ", outside the output blocks, was written");
                }
            }
        }
        return wrong;
    }

    /** Writes each block's input values into {@code buffer}, or the canary everywhere. */
    private static void fill(CommBuffer buffer, long bytes, List<Collective.Block> blocks, boolean canary) {
        ByteBuffer host = ByteBuffer.allocateDirect((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        for (Collective.Block b : blocks) {
            for (long j = 0; j < b.elements(); j++) {
                host.putLong((int) ((b.offset() + j) * WIDTH), canary ? CANARY : input(b.source(), b.sourceOffset() + j));
            }
        }
        if (canary || !blocks.isEmpty()) {
            buffer.copyFromHost(host, 0);
        }
    }

    /** Rank r's input element i: distinct across ranks and elements, so a misplaced block is caught. */
    private static long input(int r, long i) {
        return (r + 1) * 1_000_000L + i;
    }

    private static long reduced(int n, long i) {
        long sum = 0;
        for (int r = 0; r < n; r++) {
            sum += input(r, i);
        }
        return sum;
    }
}
