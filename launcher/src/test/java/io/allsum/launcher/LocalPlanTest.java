package io.allsum.launcher;

import io.allsum.launcher.AllsumCommand.BackendChoice;
import io.allsum.launcher.AllsumCommand.LocalPlan;
import io.allsum.model.Backend;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LocalPlanTest {

    private static final List<String> TWO_GPUS = List.of("GPU 0: NVIDIA H200 (UUID: GPU-a)",
            "GPU 1: NVIDIA H200 (UUID: GPU-b)");

    @Test
    void autoWithoutGpusStartsFourRingRanks() {
        assertThat(LocalPlan.decide(BackendChoice.auto, null, List::of))
                .isEqualTo(new LocalPlan(Backend.RING, 4, List.of()));
    }

    @Test
    void autoWithGpusStartsOneNcclRankPerGpu() {
        assertThat(LocalPlan.decide(BackendChoice.auto, null, () -> TWO_GPUS))
                .isEqualTo(new LocalPlan(Backend.NCCL, 2, List.of(0, 1)));
    }

    @Test
    void ringIgnoresGpusAndTakesTheRankCount() {
        assertThat(LocalPlan.decide(BackendChoice.ring, 3, () -> TWO_GPUS))
                .isEqualTo(new LocalPlan(Backend.RING, 3, List.of()));
    }

    @Test
    void ncclWithoutGpusIsAnError() {
        assertThatThrownBy(() -> LocalPlan.decide(BackendChoice.nccl, null, List::of))
                .hasMessageContaining("nvidia-smi -L lists none");
    }

    @Test
    void ncclRefusesMoreRanksThanGpus() {
        assertThatThrownBy(() -> LocalPlan.decide(BackendChoice.nccl, 3, () -> TWO_GPUS))
                .isInstanceOfSatisfying(LauncherException.class, e -> assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE))
                .hasMessageContaining("--ranks 3 needs 3 GPUs");
    }

    @Test
    void gpuProbeReadsNvidiaSmiListing() {
        String listing = "GPU 0: NVIDIA H200 (UUID: GPU-a)\nGPU 1: NVIDIA H200 (UUID: GPU-b)\n  MIG 1g.18gb Device 0\n";

        assertThat(GpuProbe.parse(listing)).containsExactlyElementsOf(TWO_GPUS);
        assertThat(GpuProbe.parse("No devices found.")).isEmpty();
    }
}
