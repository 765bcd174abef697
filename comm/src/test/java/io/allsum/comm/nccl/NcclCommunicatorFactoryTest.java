package io.allsum.comm.nccl;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;
import io.allsum.comm.CommException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

/** Runs everywhere: without a GPU the factory must say why, and must never crash or hang. */
class NcclCommunicatorFactoryTest {

    @Test
    void reportsNcclBackendAndNeverThrowsFromIsAvailable() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            assertThat(factory.backend()).isEqualTo(Backend.NCCL);
            boolean available = factory.isAvailable();
            assertThat(factory.isAvailable()).isEqualTo(available);
            assertThat(factory.unavailableReason().isEmpty()).isEqualTo(available);
        }
    }

    @Test
    void unavailableHostExplainsWhatIsMissingAndRefusesToJoin() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            assumeThat(factory.isAvailable()).as("this test is for hosts without CUDA/NCCL").isFalse();
            assertThat(factory.unavailableReason())
                    .containsAnyOf("no CUDA device", "libnccl.so.2", "libcudart");
            assertThatThrownBy(() -> factory.prepareJoin(0))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("NCCL backend unavailable");
        }
    }

    @Test
    void createRejectsAViewWithoutUniqueIdNamingRankAndPhase() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            GroupView view = new GroupView("g", 3, 2, Backend.NCCL, null, List.of());
            assertThatThrownBy(() -> factory.create(view, 1, Duration.ofSeconds(1)))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("init failed on rank 1")
                    .hasMessageContaining("no NCCL unique id");
        }
    }

    @Test
    void createRejectsAUniqueIdOfTheWrongLength() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            String shortId = Base64.getEncoder().encodeToString(new byte[16]);
            GroupView view = new GroupView("g", 1, 2, Backend.NCCL, shortId, List.of());
            assertThatThrownBy(() -> factory.create(view, 0, Duration.ofSeconds(1)))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("16 bytes");
        }
    }

    @Test
    void createRejectsAUniqueIdThatIsNotBase64WithoutRepeatingIt() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            String notBase64 = "secret-id-%%%";
            GroupView view = new GroupView("g", 1, 2, Backend.NCCL, notBase64, List.of());
            assertThatThrownBy(() -> factory.create(view, 1, Duration.ofSeconds(1)))
                    .isInstanceOf(CommException.class)
                    .hasMessageContaining("init failed on rank 1")
                    .hasMessageContaining("not base64")
                    .hasMessageNotContaining(notBase64);
        }
    }

    @Test
    void createRejectsARingGroup() {
        try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
            GroupView view = new GroupView("g", 1, 2, Backend.RING, null, List.of());
            assertThatThrownBy(() -> factory.create(view, 0, Duration.ofSeconds(1)))
                    .hasMessageContaining("uses backend ring");
        }
    }

    @Test
    void deviceComesFromAllsumDeviceThenLocalRank() {
        assertThat(NcclCommunicatorFactory.deviceFromEnvironment(Map.of("ALLSUM_DEVICE", "3", "LOCAL_RANK", "1")))
                .isEqualTo(3);
        assertThat(NcclCommunicatorFactory.deviceFromEnvironment(Map.of("LOCAL_RANK", "1"))).isEqualTo(1);
        assertThat(NcclCommunicatorFactory.deviceFromEnvironment(Map.of())).isNull();
        assertThatThrownBy(() -> NcclCommunicatorFactory.deviceFromEnvironment(Map.of("ALLSUM_DEVICE", "gpu0")))
                .hasMessageContaining("ALLSUM_DEVICE");
    }

    @Test
    void negativeDeviceIsRejectedUpFront() {
        assertThatThrownBy(() -> new NcclCommunicatorFactory(-1)).hasMessageContaining(">= 0");
    }
}
