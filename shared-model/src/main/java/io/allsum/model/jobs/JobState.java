package io.allsum.model.jobs;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.allsum.model.Backend;

import java.util.Locale;

/**
 * QUEUED until handed to the ranks, RUNNING until every rank reported, then one of the final states. INTERRUPTED:
 * the server stopped while the job was queued or running; its {@code failureReason} says which.
 */
public enum JobState {
    QUEUED, RUNNING, SUCCEEDED, FAILED, CANCELLED, INTERRUPTED;

    public boolean isFinal() {
        return this != QUEUED && this != RUNNING;
    }

    @JsonValue
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    @JsonCreator
    public static JobState fromWire(String value) {
        return Backend.Wire.parse(JobState.class, value);
    }

    @Override
    public String toString() {
        return wireName();
    }
}
