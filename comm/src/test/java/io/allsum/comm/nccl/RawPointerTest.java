package io.allsum.comm.nccl;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The caller's device pointers and streams reach NCCL at their own address (no GPU needed to check that). */
class RawPointerTest {

    @Test
    void aWrappedAddressIsTheAddressNcclIsGiven() {
        assertThat(NcclCommunicator.at(0x7f00_1234_5000L).address()).isEqualTo(0x7f00_1234_5000L);
        assertThat(new org.bytedeco.cuda.cudart.CUstream_st(NcclCommunicator.at(0xabc0L)).address()).isEqualTo(0xabc0L);
    }
}
