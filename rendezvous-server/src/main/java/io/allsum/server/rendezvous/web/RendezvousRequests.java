package io.allsum.server.rendezvous.web;

import io.allsum.server.rendezvous.JoinCommand;
import io.allsum.model.Protocol;
import io.allsum.model.problem.Violation;
import io.allsum.model.rendezvous.FailureReport;
import io.allsum.model.rendezvous.HeartbeatRequest;
import io.allsum.model.rendezvous.LeaveRequest;
import io.allsum.server.problem.ProblemException;

import java.util.ArrayList;
import java.util.List;

/** Validation of the rendezvous requests other than joins ({@link JoinCommand} validates those), once, at the edge. */
final class RendezvousRequests {

    private static final int MAX_REASON_LENGTH = 512;

    private RendezvousRequests() {
    }

    static void requireGroupName(String group) {
        if (group == null || !Protocol.GROUP_NAME.matcher(group).matches()) {
            throw ProblemException.invalid("group", "must match " + Protocol.GROUP_NAME.pattern());
        }
    }

    static HeartbeatRequest valid(String group, HeartbeatRequest request) {
        requireGroupName(group);
        List<Violation> violations = request == null ? List.of(new Violation("body", "a JSON object is required"))
                : missing(request.rank(), request.instanceId(), request.generation());
        requireNone(violations);
        return request;
    }

    static FailureReport valid(String group, FailureReport report) {
        requireGroupName(group);
        if (report == null) {
            throw ProblemException.invalid("body", "a JSON object is required");
        }
        List<Violation> violations = new ArrayList<>(
                missing(report.reporterRank(), report.instanceId(), report.generation()));
        violations.replaceAll(v -> v.field().equals("rank") ? new Violation("reporterRank", v.message()) : v);
        if (report.failedRank() == null) {
            violations.add(new Violation("failedRank", "is required"));
        }
        requireNone(violations);
        if (report.reason() != null && report.reason().length() > MAX_REASON_LENGTH) {
            throw ProblemException.invalid("reason", "must be at most " + MAX_REASON_LENGTH + " characters");
        }
        return report;
    }

    static LeaveRequest valid(String group, LeaveRequest request) {
        requireGroupName(group);
        List<Violation> violations = request == null ? List.of(new Violation("body", "a JSON object is required"))
                : missing(request.rank(), request.instanceId(), 1L);
        requireNone(violations);
        return request;
    }

    private static void requireNone(List<Violation> violations) {
        if (!violations.isEmpty()) {
            throw ProblemException.invalid(violations);
        }
    }

    private static List<Violation> missing(Integer rank, String instanceId, Long generation) {
        List<Violation> violations = new ArrayList<>();
        if (rank == null) {
            violations.add(new Violation("rank", "is required"));
        } else if (rank < 0) {
            violations.add(new Violation("rank", "must not be negative, got " + rank));
        }
        if (instanceId == null) {
            violations.add(new Violation("instanceId", "is required"));
        } else if (instanceId.isEmpty() || instanceId.length() > Protocol.INSTANCE_ID_MAX_LENGTH) {
            violations.add(new Violation("instanceId", "must be 1 to " + Protocol.INSTANCE_ID_MAX_LENGTH
                    + " characters"));
        }
        if (generation == null) {
            violations.add(new Violation("generation", "is required"));
        } else if (generation < 1) {
            violations.add(new Violation("generation", "must be at least 1, got " + generation));
        }
        return violations;
    }
}
