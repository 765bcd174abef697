package io.allsum.comm.nccl;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/** Runs the annotated tests only where CUDA, a GPU and libnccl.so.2 load; skips with the reason elsewhere. */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(NcclAvailable.Condition.class)
public @interface NcclAvailable {

    final class Condition implements ExecutionCondition {
        private static volatile String reason;

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            if (reason == null) {
                try (NcclCommunicatorFactory factory = new NcclCommunicatorFactory(null)) {
                    reason = factory.unavailableReason();
                }
            }
            return reason.isEmpty()
                    ? ConditionEvaluationResult.enabled("CUDA device and libnccl.so.2 present")
                    : ConditionEvaluationResult.disabled(reason);
        }
    }
}
