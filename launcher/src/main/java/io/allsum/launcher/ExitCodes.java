package io.allsum.launcher;

/** Exit codes of the {@code allsum} command. */
public final class ExitCodes {

    /** The job succeeded with zero wrong elements. */
    public static final int OK = 0;
    /** The job failed, found wrong elements, or the cluster could not run it (server unreachable, rank died). */
    public static final int FAILED = 1;
    /** The command line was wrong. */
    public static final int USAGE = 2;
    /** {@code allsum run}: its --timeout passed with ranks still running (124, as coreutils' timeout). */
    public static final int TIMED_OUT = 124;
    /** Ctrl-C (SIGINT, 128 + 2, as shells report it); the rows measured before it are kept. */
    public static final int INTERRUPTED = 130;

    private ExitCodes() {
    }
}
