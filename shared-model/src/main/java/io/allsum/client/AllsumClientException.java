package io.allsum.client;

import java.util.List;

/**
 * A call failed: the server answered an RFC 9457 problem ({@code status}, {@code title}, {@code detail}), or it
 * could not be reached before the deadline ({@code status} 0), or a join's deadline passed ({@link #timedOut()},
 * with the ranks still missing at the last answer in {@link #missingRanks()}).
 */
public class AllsumClientException extends RuntimeException {

    private final int status;
    private final String title;
    private final String detail;
    private final boolean timedOut;
    private final List<Integer> missingRanks;

    public AllsumClientException(int status, String title, String detail, boolean timedOut, Throwable cause) {
        this(status, title, detail, timedOut, List.of(), cause);
    }

    public AllsumClientException(int status, String title, String detail, boolean timedOut,
                                 List<Integer> missingRanks, Throwable cause) {
        super(status == 0 ? detail : status + " " + title + ": " + detail, cause);
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.timedOut = timedOut;
        this.missingRanks = missingRanks == null ? List.of() : List.copyOf(missingRanks);
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
}
