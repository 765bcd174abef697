package io.allsum.worker.agent;

import io.allsum.worker.comm.ring.RingCommunicatorFactory;
import io.allsum.worker.comm.ring.RingSettings;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The backends' factories; {@link BackendSelector} picks the one the worker uses. None touches the network or the
 * GPU until asked: the ring listens on its first {@code prepareJoin}.
 */
@Configuration(proxyBeanMethods = false)
public class CommunicatorBackendsConfiguration {

    @Bean
    public RingCommunicatorFactory ringCommunicatorFactory(WorkerProperties props) {
        String advertised = props.ringAdvertiseHost() != null && !props.ringAdvertiseHost().isBlank()
                ? props.ringAdvertiseHost() : advertisedDefault(props.ringBindHost());
        // A peer silent for the collective deadline is declared failed.
        RingSettings settings = RingSettings.DEFAULTS.withIoTimeout(props.collectiveDeadline());
        return new RingCommunicatorFactory(props.ringBindHost(), advertised, 0, settings);
    }

    /** Listening on every interface: peers dial this host's name; listening on one address: they dial that. */
    private static String advertisedDefault(String bindHost) {
        return bindHost.equals("0.0.0.0") || bindHost.equals("::") ? WorkerAgentConfiguration.localHostName()
                : bindHost;
    }
}
