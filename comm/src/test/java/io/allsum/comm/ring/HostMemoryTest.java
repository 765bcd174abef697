package io.allsum.comm.ring;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.assertj.core.api.Assertions.assertThat;

class HostMemoryTest {

    @Test
    void availableMemoryIsPositiveAndWithinThePhysicalMemory() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

        long available = HostMemory.availableBytes();

        assertThat(available).isPositive().isLessThanOrEqualTo(os.getTotalMemorySize());
    }
}
