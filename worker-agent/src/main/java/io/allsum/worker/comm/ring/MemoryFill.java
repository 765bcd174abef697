package io.allsum.worker.comm.ring;

import io.allsum.worker.comm.CommBuffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Direct float32 access to ring buffers for the benchmark's fill and check (no host copies of 256 MiB). */
final class MemoryFill {

    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MemoryFill() {
    }

    static void fill(CommBuffer buf, long count, float value) {
        MemorySegment s = ((RingBuffer) buf).segment();
        for (long i = 0; i < count; i++) {
            s.setAtIndex(F32, i, value);
        }
    }

    static long countNot(CommBuffer buf, long count, float value) {
        MemorySegment s = ((RingBuffer) buf).segment();
        long wrong = 0;
        for (long i = 0; i < count; i++) {
            if (s.getAtIndex(F32, i) != value) {
                wrong++;
            }
        }
        return wrong;
    }
}
