package io.allsum.launcher;

/** A failure the launcher reports as one line ({@code allsum: <message>}) with a non-zero exit code. */
public class LauncherException extends RuntimeException {

    private final int exitCode;

    public LauncherException(String message) {
        this(ExitCodes.FAILED, message, null);
    }

    public LauncherException(String message, Throwable cause) {
        this(ExitCodes.FAILED, message, cause);
    }

    public LauncherException(int exitCode, String message, Throwable cause) {
        super(message, cause);
        this.exitCode = exitCode;
    }

    public int exitCode() {
        return exitCode;
    }
}
