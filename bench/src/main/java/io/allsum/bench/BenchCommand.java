package io.allsum.bench;

import io.allsum.bench.dispatch.DispatchBenchmark;
import io.allsum.bench.rendezvous.RendezvousBenchmark;
import io.allsum.launcher.AllsumCommand;
import picocli.CommandLine;

import java.io.PrintStream;

/**
 * The benchmarks as subcommands of the allsum command line ({@code bench-dispatch}, {@code bench-rendezvous},
 * {@code bench-library}): the same parsing, error lines and exit codes as {@code allsum}, from the bench jar.
 */
public final class BenchCommand {

    private BenchCommand() {
    }

    public static void main(String[] args) {
        System.exit(commandLine(System.out, System.err).execute(args));
    }

    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        CommandLine cl = AllsumCommand.commandLine(out, err);
        cl.addSubcommand("bench-dispatch", new DispatchBenchmark());
        cl.addSubcommand("bench-rendezvous", new RendezvousBenchmark());
        cl.addSubcommand("bench-library", new io.allsum.bench.library.LibraryBenchmark());
        // picocli's setters reach only the subcommands added before them: allsum's settings again, now for these.
        return cl.setOut(cl.getOut()).setErr(cl.getErr()).setCaseInsensitiveEnumValuesAllowed(true)
                .setParameterExceptionHandler(cl.getParameterExceptionHandler())
                .setExecutionExceptionHandler(cl.getExecutionExceptionHandler());
    }
}
