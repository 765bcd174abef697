package io.allsum.worker.agent;

/** The backend a worker asks for: {@code auto} takes NCCL when it can run here, else the CPU ring. */
public enum BackendChoice {
    AUTO, NCCL, RING
}
