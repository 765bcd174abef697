package io.allsum.worker.agent;

import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

/** Closes the Spring context and ends the JVM with the agent's exit code, off the agent thread. */
public class SpringApplicationExit implements AgentExit {

    private final ConfigurableApplicationContext context;

    public SpringApplicationExit(ConfigurableApplicationContext context) {
        this.context = context;
    }

    @Override
    public void exit(int exitCode) {
        // Closing the context stops the agent, which waits for the agent thread: do it from another thread. Not a
        // daemon (the agent thread is one, and threads inherit it): once the context is closed no other thread holds
        // the JVM up, and a daemon would lose the race to System.exit, leaving exit code 0.
        Thread.ofPlatform().name("allsum-exit").daemon(false).start(
                () -> System.exit(SpringApplication.exit(context, () -> exitCode)));
    }
}
