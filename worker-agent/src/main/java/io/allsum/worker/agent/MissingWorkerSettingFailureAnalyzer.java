package io.allsum.worker.agent;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a missing rank or world size into Spring Boot's start-up report with a one-line description. */
public class MissingWorkerSettingFailureAnalyzer extends AbstractFailureAnalyzer<MissingWorkerSettingException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, MissingWorkerSettingException cause) {
        return new FailureAnalysis(cause.getMessage(),
                "Set the environment variables named above (torchrun and MLX launchers set them for you).", cause);
    }
}
