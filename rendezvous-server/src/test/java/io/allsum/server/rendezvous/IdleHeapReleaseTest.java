package io.allsum.server.rendezvous;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class IdleHeapReleaseTest {

    private static final long S = 1_000_000_000L;

    private final IdleHeapRelease.Tracker tracker = new IdleHeapRelease.Tracker(1024, Duration.ofSeconds(15));

    @Test
    void aBurstIsCollectedOnceAfterTheQuietTime() {
        assertThat(tracker.shouldCollect(16_383, 16_383, 0)).isFalse(); // the joins wait
        assertThat(tracker.shouldCollect(16_384, 0, 5 * S)).isFalse(); // answered since: quiet from now
        assertThat(tracker.shouldCollect(0, 0, 15 * S)).isFalse();
        assertThat(tracker.shouldCollect(0, 0, 20 * S)).isTrue();
        assertThat(tracker.shouldCollect(0, 0, 25 * S)).isFalse();
        assertThat(tracker.shouldCollect(0, 0, 300 * S)).isFalse();
    }

    @Test
    void smallGroupsNeverCollect() {
        for (int t = 0; t < 100; t++) {
            assertThat(tracker.shouldCollect(t % 2 == 0 ? 1023 : 0, 0, t * 5 * S)).isFalse();
        }
    }

    @Test
    void joinsThatWaitAfterTheBurstPutTheCollectionOff() {
        tracker.shouldCollect(4096, 0, 0);
        assertThat(tracker.shouldCollect(3, 0, 10 * S)).isFalse(); // a small group came and went
        assertThat(tracker.shouldCollect(0, 0, 20 * S)).isFalse(); // 10 s quiet only
        assertThat(tracker.shouldCollect(0, 2, 25 * S)).isFalse(); // two joins waiting
        assertThat(tracker.shouldCollect(0, 0, 40 * S)).isTrue(); // 15 s after the last one waited
    }

    @Test
    void onlyTheSerialAndParallelCollectorsNeedIt() {
        assertThat(IdleHeapRelease.collectorKeepsHeapWhileIdle(List.of("Copy", "MarkSweepCompact"))).isTrue();
        assertThat(IdleHeapRelease.collectorKeepsHeapWhileIdle(List.of("PS Scavenge", "PS MarkSweep"))).isTrue();
        assertThat(IdleHeapRelease.collectorKeepsHeapWhileIdle(
                List.of("G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation"))).isFalse();
        assertThat(IdleHeapRelease.collectorKeepsHeapWhileIdle(List.of("ZGC Minor Cycles", "ZGC Major Cycles")))
                .isFalse();
    }
}
