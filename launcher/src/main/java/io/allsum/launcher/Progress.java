package io.allsum.launcher;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Locale;

/**
 * Progress on stderr, so stdout carries only the table. On a terminal one line is redrawn with a spinner and the
 * elapsed time; otherwise (logs, CI) each event is a line of its own.
 */
public final class Progress {

    private static final char[] SPINNER = {'|', '/', '-', '\\'};

    private final PrintStream err;
    private final boolean terminal;
    private final boolean quiet;
    private final long start = System.nanoTime();
    private final Duration noteEvery;
    private long lastLine = start;
    private int tick;
    private boolean lineOpen;

    public Progress(PrintStream err, boolean terminal, boolean quiet) {
        this(err, terminal, quiet, NOTE_EVERY);
    }

    /** {@code noteEvery}: how long a wait may go without a lasting line before {@link #noteDue()} says so. */
    Progress(PrintStream err, boolean terminal, boolean quiet, Duration noteEvery) {
        this.err = err;
        this.terminal = terminal;
        this.quiet = quiet;
        this.noteEvery = noteEvery;
    }

    /** A wait says what it waits for at least this often, so that no wait is silent. */
    static final Duration NOTE_EVERY = Duration.ofSeconds(5);

    public static Progress toStderr(boolean quiet) {
        java.io.Console console = System.console();
        return new Progress(System.err, console != null && console.isTerminal(), quiet);
    }

    /** A lasting line, e.g. "server up". */
    public synchronized void event(String message) {
        if (quiet) {
            return;
        }
        clearLine();
        err.printf(Locale.ROOT, "allsum: [%6.1fs] %s%n", elapsedSeconds(), message);
        err.flush();
        lastLine = System.nanoTime();
    }

    /** Something lasting reached the user elsewhere (a table row on stdout). */
    public synchronized void printed() {
        lastLine = System.nanoTime();
    }

    /** Whether nothing lasting was printed for {@link #NOTE_EVERY}: a wait should then say what it waits for. */
    public synchronized boolean noteDue() {
        return System.nanoTime() - lastLine >= noteEvery.toNanos();
    }

    /** A lasting line that is shown even with --quiet: something went wrong beside the run's own error. */
    public synchronized void warn(String message) {
        clearLine();
        err.printf(Locale.ROOT, "allsum: warning: %s%n", message);
        err.flush();
    }

    /** A transient status, redrawn on a terminal and dropped elsewhere. */
    public synchronized void status(String message) {
        if (quiet || !terminal) {
            return;
        }
        err.printf(Locale.ROOT, "\r\u001b[2Kallsum: %c [%6.1fs] %s", SPINNER[tick++ % SPINNER.length],
                elapsedSeconds(), message);
        err.flush();
        lineOpen = true;
    }

    public synchronized void done() {
        clearLine();
    }

    public double elapsedSeconds() {
        return (System.nanoTime() - start) / 1e9;
    }

    private void clearLine() {
        if (lineOpen) {
            err.print("\r\u001b[2K");
            lineOpen = false;
        }
    }
}
