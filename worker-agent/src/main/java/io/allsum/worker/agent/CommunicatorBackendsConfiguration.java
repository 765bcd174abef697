package io.allsum.worker.agent;

import io.allsum.comm.nccl.NcclCommunicatorFactory;
import io.allsum.comm.ring.RingCommunicatorFactory;
import io.allsum.comm.ring.RingSettings;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The backends' factories; {@link BackendSelector} picks the one the worker uses. None touches the network or the
 * GPU until asked: NCCL probes CUDA on {@code isAvailable()}, the ring listens on its first {@code prepareJoin}.
 */
@Configuration(proxyBeanMethods = false)
public class CommunicatorBackendsConfiguration {

    /** The GPU: allsum.worker.device, else ALLSUM_DEVICE or LOCAL_RANK, else the only visible one. */
    @Bean
    public NcclCommunicatorFactory ncclCommunicatorFactory(WorkerProperties props) {
        return new NcclCommunicatorFactory(deviceIndex(props.device()), props.collectiveDeadline());
    }

    @Bean
    public RingCommunicatorFactory ringCommunicatorFactory(WorkerProperties props, AdvertisedAddressProperties net) {
        // An address peers on other hosts can reach, never the host name by default (see AdvertisedAddress).
        AdvertisedAddress.Choice choice = AdvertisedAddress.choose(props.ringAdvertiseHost(), props.ringBindHost(),
                props.server(), net.ringInterface(), net.ringCidr());
        LoggerFactory.getLogger(CommunicatorBackendsConfiguration.class)
                .info("Ring endpoint advertises {} ({})", choice.host(), choice.reason());
        String advertised = choice.host();
        // A peer silent for the collective deadline is declared failed.
        RingSettings settings = RingSettings.DEFAULTS.withIoTimeout(props.collectiveDeadline())
                .withSharedMemory(props.ringSharedMemory());
        return new RingCommunicatorFactory(props.ringBindHost(), advertised, 0, settings);
    }

    static Integer deviceIndex(String device) {
        if (device == null || device.isBlank()) {
            return null;
        }
        try {
            return Integer.parseInt(device.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("allsum.worker.device (ALLSUM_DEVICE or LOCAL_RANK) must be a CUDA"
                    + " device index, was '" + device + "'");
        }
    }
}
