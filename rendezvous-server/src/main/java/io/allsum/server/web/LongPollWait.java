package io.allsum.server.web;

import io.allsum.model.Protocol;
import io.allsum.server.problem.ProblemException;

import java.time.Duration;

/** The one rule for a long-poll's {@code wait} parameter (joins and job polls): absent, default; above max, max. */
public final class LongPollWait {

    private LongPollWait() {
    }

    /**
     * @param waitSeconds the {@code wait} query parameter, null when absent
     * @throws ProblemException 400 invalid-request when negative
     */
    public static Duration resolve(Integer waitSeconds, Duration defaultWait, Duration maxWait) {
        if (waitSeconds == null) {
            return defaultWait.compareTo(maxWait) > 0 ? maxWait : defaultWait;
        }
        if (waitSeconds < 0) {
            throw ProblemException.invalid(Protocol.WAIT_PARAM, "must not be negative, got " + waitSeconds);
        }
        Duration asked = Duration.ofSeconds(waitSeconds);
        return asked.compareTo(maxWait) > 0 ? maxWait : asked;
    }
}
