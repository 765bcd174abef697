package io.allsum.worker.agent;

import io.allsum.comm.CommunicatorFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Resolves {@link BackendChoice} to one factory, and says why in the log. */
public final class BackendSelector {

    private static final Logger log = LoggerFactory.getLogger(BackendSelector.class);

    private BackendSelector() {
    }

    /**
     * @throws IllegalStateException when NCCL is asked for explicitly but cannot run here, naming the reason
     */
    public static CommunicatorFactory select(BackendChoice choice, CommunicatorFactory nccl, CommunicatorFactory ring) {
        return switch (choice) {
            case RING -> {
                log.info("Backend ring (configured)");
                yield ring;
            }
            case NCCL -> {
                if (!nccl.isAvailable()) {
                    throw new IllegalStateException("backend nccl was requested but cannot run here: "
                            + nccl.unavailableReason() + " (set ALLSUM_BACKEND=ring or auto)");
                }
                log.info("Backend nccl (configured)");
                yield nccl;
            }
            case AUTO -> {
                if (nccl.isAvailable()) {
                    log.info("Backend nccl (auto: CUDA, a GPU and libnccl are present)");
                    yield nccl;
                }
                log.info("Backend ring (auto: NCCL unavailable: {})", nccl.unavailableReason());
                yield ring;
            }
        };
    }
}
