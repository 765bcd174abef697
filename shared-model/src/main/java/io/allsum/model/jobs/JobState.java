package io.allsum.model.jobs;

import com.fasterxml.jackson.annotation.JsonCreator;
import io.allsum.model.WireEnum;

/**
 * QUEUED until handed to the ranks, RUNNING until every rank reported, then one of the final states. INTERRUPTED:
 * the server stopped while the job was queued or running; its {@code failureReason} says which.
 */
public enum JobState implements WireEnum {
    QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, INTERRUPTED;

    public boolean isFinal() {
        return this != QUEUED && this != RUNNING;
    }

    @JsonCreator
    public static JobState fromWire(String value) {
        return WireEnum.parse(JobState.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
