package io.allsum.worker.agent;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackendSelectorTest {

    private final StubCommunicatorFactory ring = new StubCommunicatorFactory(Backend.RING, true);

    @Test
    void autoPicksNcclWhenItIsAvailable() {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, true);
        assertThat(BackendSelector.select(BackendChoice.AUTO, nccl, ring)).isSameAs(nccl);
    }

    @Test
    void autoFallsBackToTheRingWithoutNccl() {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, false);
        assertThat(BackendSelector.select(BackendChoice.AUTO, nccl, ring)).isSameAs(ring);
    }

    @Test
    void ringIsTakenWhenConfiguredEvenWithNcclAvailable() {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, true);
        assertThat(BackendSelector.select(BackendChoice.RING, nccl, ring)).isSameAs(ring);
    }

    @Test
    void explicitNcclWithoutNcclFailsNamingTheReason() {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, false);
        assertThatThrownBy(() -> BackendSelector.select(BackendChoice.NCCL, nccl, ring))
                .hasMessageContaining("libnccl.so.2 not found").hasMessageContaining("ALLSUM_BACKEND=ring");
    }
}
