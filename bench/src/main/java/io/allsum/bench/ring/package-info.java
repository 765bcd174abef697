/**
 * {@link io.allsum.bench.ring.RingBenchmark} measures the ring backend without a rendezvous server (bench/ring,
 * bench/h200). Command lines are picocli, as the launcher's.
 */
package io.allsum.bench.ring;
