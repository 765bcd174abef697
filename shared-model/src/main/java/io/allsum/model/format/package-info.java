/**
 * Text every tool shares: byte sizes as nccl-tests reads and writes them ({@link io.allsum.model.format.ByteSize})
 * and the nccl-tests result rows ({@link io.allsum.model.format.NcclTestsTable}), so the launcher's table, the ring
 * benchmark and the NCCL self check print the same columns.
 */
package io.allsum.model.format;
