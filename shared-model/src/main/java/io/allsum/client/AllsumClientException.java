package io.allsum.client;

import io.allsum.model.problem.ProblemCode;
import io.allsum.model.problem.Violation;

import java.util.List;
import java.util.Optional;

/**
 * A call failed: the server answered an RFC 9457 problem ({@code status}, {@code title}, {@code detail}, and its
 * machine-readable {@link #code()} and {@link #violations()}), or it could not be reached before the deadline
 * ({@code status} 0), or a join's deadline passed ({@link #timedOut()}, with the ranks still missing at the last
 * answer in {@link #missingRanks()}). Branch on {@link #code()} or {@link #is(ProblemCode)}, never on the title.
 */
public class AllsumClientException extends RuntimeException {

    private final int status;
    private final String title;
    private final String detail;
    private final boolean timedOut;
    private final List<Integer> missingRanks;
    private final String wireCode;
    private final List<Violation> violations;

    public AllsumClientException(int status, String title, String detail, boolean timedOut, Throwable cause) {
        this(status, title, detail, timedOut, List.of(), cause);
    }

    public AllsumClientException(int status, String title, String detail, boolean timedOut,
                                 List<Integer> missingRanks, Throwable cause) {
        this(status, title, detail, timedOut, missingRanks, null, List.of(), cause);
    }

    /** A problem answer: {@code wireCode} is the problem's {@code code} member, null when it had none. */
    public AllsumClientException(int status, String title, String detail, String wireCode,
                                 List<Violation> violations) {
        this(status, title, detail, false, List.of(), wireCode, violations, null);
    }

    private AllsumClientException(int status, String title, String detail, boolean timedOut,
                                  List<Integer> missingRanks, String wireCode, List<Violation> violations,
                                  Throwable cause) {
        super(status == 0 ? detail : status + " " + title + ": " + detail, cause);
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.timedOut = timedOut;
        this.missingRanks = missingRanks == null ? List.of() : List.copyOf(missingRanks);
        this.wireCode = wireCode;
        this.violations = violations == null ? List.of() : List.copyOf(violations);
    }

    /** The HTTP status, or 0 when no answer came. */
    public int status() {
        return status;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    public boolean timedOut() {
        return timedOut;
    }

    /** For a join whose deadline passed: the ranks the server still waited for at its last answer; else empty. */
    public List<Integer> missingRanks() {
        return missingRanks;
    }

    /**
     * The problem's code: the server's {@code code} member when this version knows it, else the generic code of the
     * status (an answer from a proxy or an older server); empty when no answer came.
     */
    public Optional<ProblemCode> code() {
        if (status == 0) {
            return Optional.empty();
        }
        return ProblemCode.fromWire(wireCode).or(() -> Optional.of(ProblemCode.forStatus(status)));
    }

    /** Whether the server answered a problem of this code. */
    public boolean is(ProblemCode code) {
        return code().orElse(null) == code;
    }

    /** The {@code code} member exactly as the server sent it; null when there was none. */
    public String wireCode() {
        return wireCode;
    }

    /** The problem's {@code violations}: each invalid field and why; empty for other problems. */
    public List<Violation> violations() {
        return violations;
    }
}
