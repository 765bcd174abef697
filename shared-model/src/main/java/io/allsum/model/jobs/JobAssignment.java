package io.allsum.model.jobs;

/**
 * Answer of the workers' long-poll {@code GET /rendezvous/{group}/jobs/next?rank=R&after=SEQ}: the next job in
 * the group's order, its spec with defaults applied. Every rank receives the jobs in the same {@code seq} order.
 */
public record JobAssignment(String jobId, long seq, long generation, JobSpec spec) {
}
