package io.allsum.worker.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * A JVM started by an integration test, its output going to a log file that the test can search (for the HTTP port,
 * for error lines). Closing it asks for a graceful stop (SIGTERM), then kills it past a deadline.
 */
final class JvmProcess implements AutoCloseable {

    /** Flags that cut JVM start-up on a small CI machine. */
    static final List<String> FAST_START = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-Xss512k", "-Xmx192m", "--enable-native-access=ALL-UNNAMED");
    // Server and worker (one with an HTTP port) both run on Jetty.
    private static final Pattern HTTP_PORT = Pattern.compile("Jetty started on port (\\d+)");

    private final String name;
    private final Process process;
    private final Path log;

    private JvmProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static Path javaExecutable() {
        return Path.of(ProcessHandle.current().info().command()
                .orElseGet(() -> Path.of(System.getProperty("java.home"), "bin", "java").toString()));
    }

    /**
     * This module's test runtime classpath. Surefire/failsafe may boot the fork from a manifest-only jar; they then
     * publish the real classpath as {@code surefire.test.class.path}.
     */
    static String testClasspath() {
        String fromPlugin = System.getProperty("surefire.test.class.path");
        String classpath = fromPlugin != null && !fromPlugin.isBlank() ? fromPlugin
                : System.getProperty("java.class.path");
        // Without the test classes: the worker's component scan must see only what production has.
        return Arrays.stream(classpath.split(File.pathSeparator))
                .filter(entry -> !Path.of(entry).endsWith(Path.of("target", "test-classes")))
                .collect(Collectors.joining(File.pathSeparator));
    }

    /** Starts {@code java FAST_START jvmArgs... mainArgs...} with its output in {@code logDir/name.log}. */
    static JvmProcess start(String name, Path logDir, List<String> jvmArgs, List<String> mainArgs) throws IOException {
        Files.createDirectories(logDir);
        Path log = logDir.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(javaExecutable().toString());
        command.addAll(FAST_START);
        command.addAll(jvmArgs);
        command.addAll(mainArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
        // The child must not pick up this machine's launcher variables (RANK, WORLD_SIZE, ...) by accident.
        builder.environment().keySet().removeIf(k -> k.startsWith("ALLSUM_") || k.equals("RANK")
                || k.equals("WORLD_SIZE") || k.equals("LOCAL_RANK") || k.startsWith("MLX_"));
        return new JvmProcess(name, builder.start(), log);
    }

    String name() {
        return name;
    }

    Process process() {
        return process;
    }

    String output() {
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** The port the web server reports, waiting for it at most {@code deadline}; fails naming the process and its log. */
    int awaitHttpPort(Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        while (System.nanoTime() < end) {
            Matcher m = HTTP_PORT.matcher(output());
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!process.isAlive()) {
                throw new AssertionError(name + " exited with " + process.exitValue() + " before serving HTTP:\n"
                        + tail());
            }
            Thread.sleep(100);
        }
        throw new AssertionError(name + " did not serve HTTP within " + deadline + ":\n" + tail());
    }

    /** Waits for the process to end by itself, at most {@code deadline}; its exit code, or fails. */
    int awaitExit(Duration deadline) throws InterruptedException {
        if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError(name + " still running after " + deadline + ":\n" + tail());
        }
        return process.exitValue();
    }

    /** Sends {@code kill -SIGNAL} (STOP, CONT, ...) to the process; fails when kill does. */
    void signal(String signal) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill -" + signal + " " + process.pid() + " failed (" + name + ")");
        }
    }

    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }

    String tail() {
        String out = output();
        return out.length() <= 4000 ? out : "..." + out.substring(out.length() - 4000);
    }

    @Override
    public void close() throws InterruptedException {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
