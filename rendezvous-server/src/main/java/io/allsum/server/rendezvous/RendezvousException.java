package io.allsum.server.rendezvous;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;
import io.allsum.server.web.ProblemException;

import java.time.Duration;
import java.util.List;

/** A rendezvous request that cannot be served: a {@link ProblemException} with a rendezvous {@link ProblemCode}. */
public class RendezvousException extends ProblemException {

    public RendezvousException(ProblemCode code, String detail) {
        super(code, detail);
    }

    @Override
    public RendezvousException retryAfter(Duration delay) {
        super.retryAfter(delay);
        return this;
    }

    public static RendezvousException invalid(List<Violation> violations) {
        RendezvousException e = new RendezvousException(ProblemCode.INVALID_REQUEST, describe(violations));
        withViolations(e.getBody(), violations);
        return e;
    }

    public static RendezvousException invalid(String field, String message) {
        return invalid(List.of(new Violation(field, message)));
    }

    public static RendezvousException unknownGroup(String group) {
        return new RendezvousException(ProblemCode.UNKNOWN_GROUP, "group '" + group + "' does not exist");
    }
}
