package io.allsum.comm;

import io.allsum.model.Backend;
import io.allsum.model.rendezvous.GroupView;

import java.time.Duration;

/**
 * Builds communicators of one backend (one folder per backend: {@code comm.nccl}, {@code comm.ring}).
 * The worker asks {@link #isAvailable()} to choose a backend, then joins the rendezvous with what
 * {@link #prepareJoin(int)} gives, then calls {@link #create} with the completed generation.
 */
public interface CommunicatorFactory {

    Backend backend();

    /** Whether this backend can run here (for NCCL: CUDA, a GPU and libnccl load); never throws. */
    boolean isAvailable();

    /** Why {@link #isAvailable()} is false, for logs and errors; empty when available. */
    String unavailableReason();

    /**
     * Prepares this rank's part of the join: for NCCL, rank 0 makes a fresh unique id (base64); for the ring,
     * every rank opens its listening socket and returns its endpoint. Called once per generation.
     */
    JoinContribution prepareJoin(int rank);

    /** Builds the communicator for a completed generation, within {@code deadline}. */
    Communicator create(GroupView view, int rank, Duration deadline);

    /** What a rank brings to its join: the unique id (rank 0, NCCL), its endpoint (ring), its device name. */
    record JoinContribution(String uniqueId, String endpoint, String device) {
    }
}
