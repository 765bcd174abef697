package io.allsum.worker.agent;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class CommunicatorBackendsConfigurationTest {

    @Test
    void deviceIsACudaIndexOrNothing() {
        assertThat(CommunicatorBackendsConfiguration.deviceIndex(null)).isNull();
        assertThat(CommunicatorBackendsConfiguration.deviceIndex(" ")).isNull();
        assertThat(CommunicatorBackendsConfiguration.deviceIndex(" 3 ")).isEqualTo(3);
    }

    @Test
    void aDeviceThatIsNoIndexIsRejectedNamingTheSetting() {
        assertThatThrownBy(() -> CommunicatorBackendsConfiguration.deviceIndex("GPU-1234"))
                .hasMessageContaining("ALLSUM_DEVICE").hasMessageContaining("GPU-1234");
    }
}
