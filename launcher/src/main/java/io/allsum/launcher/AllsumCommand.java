package io.allsum.launcher;

/** Entry point of the {@code allsum} command (filled by the launcher work). */
public final class AllsumCommand {

    public static void main(String[] args) {
        System.err.println("allsum: launcher not built yet");
        System.exit(2);
    }
}
