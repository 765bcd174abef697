package io.allsum.worker.agent;

import io.allsum.client.AllsumClient;
import io.allsum.client.HttpAllsumClient;
import io.allsum.model.Backend;
import io.allsum.comm.CommunicatorFactory;
import io.allsum.worker.jobs.CollectiveJobRunner;
import io.allsum.worker.jobs.CollectiveMeters;
import io.allsum.worker.jobs.JobRunner;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.unit.DataSize;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.UUID;

/** Wires the worker: the rendezvous client, the chosen backend, the agent and its health indicator. */
@Configuration(proxyBeanMethods = false)
public class WorkerAgentConfiguration {

    @Bean(destroyMethod = "close")
    public AllsumClient allsumClient(WorkerProperties props) {
        return HttpAllsumClient.builder(props.server()).token(props.token()).build();
    }

    @Bean
    public CollectiveMeters collectiveMeters() {
        return new CollectiveMeters();
    }

    /** {@code allsum.worker.job-memory-limit}: the most one job may allocate on this rank (default: no limit). */
    @Bean
    public JobRunner jobRunner(CollectiveMeters meters,
                               @Value("${allsum.worker.job-memory-limit:#{null}}") DataSize memoryLimit) {
        return new CollectiveJobRunner(meters, memoryLimit == null ? Long.MAX_VALUE : memoryLimit.toBytes());
    }

    @Bean
    public WorkerAgent workerAgent(WorkerProperties props, RestartWindowProperties restartWindow, AllsumClient client,
                                   List<CommunicatorFactory> factories, JobRunner runner,
                                   ConfigurableApplicationContext context) {
        CommunicatorFactory chosen = BackendSelector.select(props.backend(), find(factories, Backend.NCCL),
                find(factories, Backend.RING));
        // One id per process incarnation: a restarted worker is recognised as new by the server.
        String instanceId = "r" + props.rank() + "-" + UUID.randomUUID();
        return new WorkerAgent(props, client, chosen, runner, new SpringApplicationExit(context), instanceId,
                localHostName(), restartWindow.restartWindow());
    }

    @Bean
    public CommunicatorHealthIndicator communicatorHealthIndicator(WorkerAgent agent) {
        return new CommunicatorHealthIndicator(agent);
    }

    @Bean
    public AgentMetrics agentMetrics(WorkerAgent agent) {
        return new AgentMetrics(agent);
    }

    @Bean
    public WorkerPortLogger workerPortLogger(WorkerProperties props) {
        return new WorkerPortLogger(props);
    }

    private static CommunicatorFactory find(List<CommunicatorFactory> factories, Backend backend) {
        return factories.stream().filter(f -> f.backend() == backend).findFirst()
                .orElseThrow(() -> new IllegalStateException("no communicator factory for backend " + backend));
    }

    static String localHostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }
}
