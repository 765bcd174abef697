package io.allsum.worker.agent;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;

/**
 * {@code allsum.worker.restart-window} (ALLSUM_WORKER_RESTART_WINDOW): the worker exits (code 3) once more than
 * {@code allsum.worker.max-restarts} failures fall within this window. Its own record, beside
 * {@link WorkerProperties}, under the same prefix.
 */
@ConfigurationProperties("allsum.worker")
public record RestartWindowProperties(@DefaultValue("10m") Duration restartWindow) {

    public RestartWindowProperties {
        if (restartWindow == null || restartWindow.isNegative() || restartWindow.isZero()) {
            throw new IllegalArgumentException("allsum.worker.restart-window must be positive, was " + restartWindow);
        }
    }
}
