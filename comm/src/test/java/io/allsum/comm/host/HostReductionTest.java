package io.allsum.comm.host;

import io.allsum.model.DataType;
import io.allsum.model.ReduceOp;
import org.junit.jupiter.api.Test;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static org.assertj.core.api.Assertions.assertThat;

class HostReductionTest {

    @Test
    void uint8MaxComparesUnsignedAndInt8SumWraps() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) 200, (byte) 100);
            MemorySegment b = arena.allocateFrom(ValueLayout.JAVA_BYTE, (byte) 10, (byte) 100);
            MemorySegment d = arena.allocate(2);
            HostReduction.combine(a, b, d, 2, DataType.UINT8, ReduceOp.MAX);
            assertThat(d.get(ValueLayout.JAVA_BYTE, 0) & 0xFF).isEqualTo(200);
            HostReduction.combine(a, b, d, 2, DataType.INT8, ReduceOp.SUM);
            assertThat(d.get(ValueLayout.JAVA_BYTE, 1)).isEqualTo((byte) 200); // 100 + 100 wraps to -56
        }
    }

    @Test
    void uint64AverageDividesUnsignedAndInt32AverageTruncatesTowardZero() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment u = arena.allocateFrom(HostReduction.I64, -2L); // 2^64 - 2
            HostReduction.divide(u, 1, DataType.UINT64, 2);
            assertThat(u.get(HostReduction.I64, 0)).isEqualTo(Long.MAX_VALUE);
            MemorySegment s = arena.allocateFrom(HostReduction.I32, -7);
            HostReduction.divide(s, 1, DataType.INT32, 2);
            assertThat(s.get(HostReduction.I32, 0)).isEqualTo(-3);
        }
    }

    @Test
    void halfSumRoundsEveryStepToNearestEven() {
        try (Arena arena = Arena.ofConfined()) {
            // 2048 + 1 is not a float16: the tie rounds to the even 2048
            MemorySegment a = arena.allocateFrom(HostReduction.I16, Float.floatToFloat16(2048f));
            MemorySegment b = arena.allocateFrom(HostReduction.I16, Float.floatToFloat16(1f));
            HostReduction.combine(a, b, a, 1, DataType.FLOAT16, ReduceOp.SUM);
            assertThat(Float.float16ToFloat(a.get(HostReduction.I16, 0))).isEqualTo(2048f);
            MemorySegment e = arena.allocateFrom(ValueLayout.JAVA_BYTE, MiniFloats.floatToE4m3(400f));
            HostReduction.combine(e, e, e, 1, DataType.FLOAT8_E4M3, ReduceOp.SUM);
            assertThat(MiniFloats.e4m3ToFloat(e.get(ValueLayout.JAVA_BYTE, 0))).isEqualTo(448f); // saturates
        }
    }
}
