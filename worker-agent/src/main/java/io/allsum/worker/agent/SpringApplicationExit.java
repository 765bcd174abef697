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
        // daemon (a daemon agent thread would pass that on): the JVM must not end with 0 once Tomcat's threads stop,
        // before System.exit has run.
        Thread.ofPlatform().daemon(false).name("allsum-exit").start(
                () -> System.exit(SpringApplication.exit(context, () -> exitCode)));
    }
}
