package io.allsum.comm.ring;

import io.allsum.comm.CommBuffer;
import io.allsum.comm.Communicator;
import io.allsum.comm.TcpCounts;
import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The kernel's counters of a ring's own connections: one entry per peer, growing with what the ranks send. */
class TcpCountersTest {

    @Test
    @EnabledOnOs(value = OS.LINUX, disabledReason = "the counters come from Linux's sock_diag")
    void eachPeerConnectionCountsTheSegmentsItSent() {
        RingSettings tcpOnly = RingSettings.DEFAULTS.withIoTimeout(Duration.ofSeconds(30)).withSharedMemory(false);
        try (RingCluster cluster = new RingCluster(3, tcpOnly).start(1)) {
            List<Map<Integer, TcpCounts>> before = cluster.onEveryRank(r -> cluster.comms.get(r).tcpCounters());
            cluster.onEveryRank(r -> {
                Communicator comm = cluster.comms.get(r);
                try (CommBuffer buf = comm.allocate(8L << 20)) {
                    comm.allReduce(buf, buf, (8L << 20) / 4, DataType.FLOAT32, ReduceOp.SUM);
                }
                return null;
            });
            List<Map<Integer, TcpCounts>> after = cluster.onEveryRank(r -> cluster.comms.get(r).tcpCounters());
            for (int r = 0; r < 3; r++) {
                assertThat(after.get(r).keySet()).as("rank " + r + "'s peers").containsExactlyInAnyOrder(
                        (r + 1) % 3, (r + 2) % 3);
                int next = (r + 1) % 3;
                TcpCounts sent = after.get(r).get(next).since(before.get(r).get(next));
                // a ring all-reduce of 8 MiB sends 2 x 2/3 of it to the next rank: hundreds of offloaded segments
                assertThat(sent.segmentsOut()).as("rank " + r + " to " + next).isGreaterThan(50);
                // a loaded loopback resends a few (27 of 247 in one CI run, with other test classes on the same 2
                // cores); a misread or swapped field would not stay under half
                assertThat(sent.retransmits()).as("rank " + r + " to " + next + " resent")
                        .isBetween(0L, sent.segmentsOut() / 2);
                // a duplicate the peer reports comes of a resent segment: a misread field would pass the resends
                assertThat(sent.spuriousRetransmits()).as("rank " + r + " to " + next + " resent spuriously")
                        .isBetween(0L, sent.retransmits());
            }
        }
    }

    @Test
    void countersNeverGoBackAcrossAReconnect() {
        TcpCounts earlier = new TcpCounts(100, 5, 1);
        assertThat(new TcpCounts(150, 7, 3).since(earlier)).isEqualTo(new TcpCounts(50, 2, 2));
        assertThat(new TcpCounts(10, 0, 0).since(earlier)).isEqualTo(new TcpCounts(0, 0, 0));
    }
}
