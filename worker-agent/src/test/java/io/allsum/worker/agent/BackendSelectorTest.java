package io.allsum.worker.agent;

import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class BackendSelectorTest {

    private final StubCommunicatorFactory ring = new StubCommunicatorFactory(Backend.RING, true);

    @ParameterizedTest(name = "{0} with NCCL available: {1} picks {2}")
    @CsvSource({"AUTO, true, NCCL", "AUTO, false, RING", "RING, true, RING"})
    void autoPicksNcclWhenAvailableAndRingIsTakenWhenConfigured(BackendChoice choice, boolean ncclAvailable,
                                                                Backend picked) {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, ncclAvailable);
        assertThat(BackendSelector.select(choice, nccl, ring)).isSameAs(picked == Backend.NCCL ? nccl : ring);
    }

    @Test
    void explicitNcclWithoutNcclFailsNamingTheReason() {
        StubCommunicatorFactory nccl = new StubCommunicatorFactory(Backend.NCCL, false);
        assertThatThrownBy(() -> BackendSelector.select(BackendChoice.NCCL, nccl, ring))
                .hasMessageContaining("libnccl.so.2 not found").hasMessageContaining("ALLSUM_BACKEND=ring");
    }
}
