package io.allsum.client;

/**
 * A call failed: the server answered an RFC 9457 problem ({@code status}, {@code title}, {@code detail}), or it
 * could not be reached before the deadline ({@code status} 0), or a join's deadline passed ({@link #timedOut()}).
 */
public class AllsumClientException extends RuntimeException {

    private final int status;
    private final String title;
    private final String detail;
    private final boolean timedOut;

    public AllsumClientException(int status, String title, String detail, boolean timedOut, Throwable cause) {
        super(status == 0 ? detail : status + " " + title + ": " + detail, cause);
        this.status = status;
        this.title = title;
        this.detail = detail;
        this.timedOut = timedOut;
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
}
