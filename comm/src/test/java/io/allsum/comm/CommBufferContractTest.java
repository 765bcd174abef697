package io.allsum.comm;

import io.allsum.comm.ring.RingCluster;
import io.allsum.comm.ring.RingSettings;
import org.junit.jupiter.api.Test;

/** {@link CommBufferContract} on the ring's buffers (NCCL's: {@code NcclCommunicatorGpuTest}). */
class CommBufferContractTest {

    @Test
    void ringBuffersCopyAsTheContractSays() {
        try (RingCluster cluster = new RingCluster(1, RingSettings.DEFAULTS).start(1);
             CommBuffer buffer = cluster.comms.get(0).allocate(64)) {
            CommBufferContract.check(buffer);
        }
    }
}
