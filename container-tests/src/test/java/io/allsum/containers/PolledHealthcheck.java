package io.allsum.containers;

import java.time.Duration;

import org.testcontainers.containers.ContainerLaunchException;
import org.testcontainers.containers.wait.strategy.AbstractWaitStrategy;

/**
 * Waits for the image's own HEALTHCHECK to report healthy, as {@code Wait.forHealthcheck()} does, but reads the
 * container's state twice a second: Testcontainers' strategy inspects it in a tight loop, which on a 2-core machine
 * keeps the test JVM and dockerd busy and starves the very JVMs it waits for.
 */
final class PolledHealthcheck extends AbstractWaitStrategy {

    private static final Duration POLL = Duration.ofMillis(500);

    static PolledHealthcheck within(Duration timeout) {
        PolledHealthcheck wait = new PolledHealthcheck();
        wait.withStartupTimeout(timeout);
        return wait;
    }

    @Override
    protected void waitUntilReady() {
        long end = System.nanoTime() + startupTimeout.toNanos();
        while (!waitStrategyTarget.isHealthy()) {
            if (!waitStrategyTarget.isRunning()) {
                throw new ContainerLaunchException("the container stopped before its healthcheck passed");
            }
            if (System.nanoTime() > end) {
                throw new ContainerLaunchException("the container's healthcheck did not pass within " + startupTimeout);
            }
            try {
                Thread.sleep(POLL);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ContainerLaunchException("interrupted while waiting for the container's healthcheck", e);
            }
        }
    }
}
