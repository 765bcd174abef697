package io.allsum.testing;

import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.function.Supplier;

/**
 * Runs a picocli command line in this JVM and keeps what it printed, for a test's assertions. Shared with the other
 * modules' tests through shared-model's test-jar (picocli comes from the module that uses it).
 */
public final class CommandLineRun {

    private final Supplier<CommandLine> commandLine;
    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    public CommandLineRun(Supplier<CommandLine> commandLine) {
        this.commandLine = commandLine;
    }

    /** The exit code of a fresh command line run with {@code args}; what it prints adds to {@link #out} and {@link #err}. */
    public int run(String... args) {
        return commandLine.get().setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true)).execute(args);
    }

    /** Everything the runs printed on stdout. */
    public String out() {
        return out.toString();
    }

    /** Everything the runs printed on stderr. */
    public String err() {
        return err.toString();
    }
}
