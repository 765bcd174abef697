/**
 * Developer tools shipped in the worker jar but never started by the agent: {@link
 * io.allsum.worker.bench.RingBenchmark} measures the ring backend without a rendezvous server (bench/ring,
 * bench/h200). Command lines are picocli, as the launcher's.
 */
package io.allsum.worker.bench;
