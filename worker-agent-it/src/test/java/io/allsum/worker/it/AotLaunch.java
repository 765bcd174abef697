package io.allsum.worker.it;

import io.allsum.worker.WorkerAgentApplication;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * How an integration test starts the worker or the server JVM: {@link #command()} is the java arguments up to the
 * application's own. Where the build packaged the jars, the JVM maps a JDK AOT cache of the application's start-up
 * (JEP 514), trained once per build by the first start: the dozens of JVMs the ITs start then spend about half the
 * CPU each on starting. The worker runs from its plain jar (a cache takes no class directory), the server from its
 * jar extracted as Spring Boot lays it out for AOT caches (a cache takes no nested jars).
 */
final class AotLaunch {

    static final Path DIR = Path.of("target", "it-aot");
    /** A training run past this is stopped and the JVMs start without a cache. */
    static final long TRAINING_DEADLINE_SECONDS = 240;

    static final AotLaunch WORKER = new AotLaunch("worker", AotLaunch::workerClasspath, List.of(
            "--server.port=0", "--server.address=127.0.0.1", "--allsum.worker.server=http://127.0.0.1:9",
            "--allsum.worker.group=aot-training", "--allsum.worker.rank=0", "--allsum.worker.world-size=2",
            "--allsum.worker.backend=ring", "--allsum.worker.ring-bind-host=127.0.0.1"));
    static final AotLaunch SERVER = new AotLaunch("server", AotLaunch::extractedServer, List.of(
            "--server.port=0", "--server.address=127.0.0.1",
            "--allsum.data-dir=" + DIR.resolve("server-training-data").toAbsolutePath()));

    /** What to start and whether a cache may go with it. */
    private record Base(List<String> command, boolean cacheable, String why) {
    }

    private final String name;
    private final Supplier<Base> base;
    private final List<String> trainingArgs;
    private List<String> command;

    private AotLaunch(String name, Supplier<Base> base, List<String> trainingArgs) {
        this.name = name;
        this.base = base;
        this.trainingArgs = trainingArgs;
    }

    /** {@code [-XX:AOTCache=...] -cp ... main} or {@code [-XX:AOTCache=...] -jar ...}; trains on first use. */
    synchronized List<String> command() {
        if (command == null) {
            command = prepare();
        }
        return command;
    }

    /** {@link #command()} followed by the application's arguments. */
    List<String> with(String... args) {
        return Stream.concat(command().stream(), Stream.of(args)).toList();
    }

    private List<String> prepare() {
        Base start = base.get();
        if (!Boolean.parseBoolean(System.getProperty("allsum.it.aot", "true")) || !start.cacheable()) {
            if (start.why() != null) {
                System.out.println("it: " + name + " JVMs start without an AOT cache: " + start.why());
            }
            return start.command();
        }
        Path cache = DIR.resolve(name + ".aot");
        if (!isNewerThanEveryJar(cache, start.command()) && !train(cache, start.command())) {
            return start.command();
        }
        List<String> command = new ArrayList<>(List.of("-XX:AOTCache=" + cache.toAbsolutePath()));
        command.addAll(start.command());
        return List.copyOf(command);
    }

    /** The worker's classes (its plain jar) and libraries, from this module's test class path. */
    private static Base workerClasspath() {
        String classpath = JvmProcess.testClasspath();
        List<String> start = List.of("-cp", classpath, WorkerAgentApplication.class.getName());
        // A cache takes jars only (an IDE may put a module's classes directory here instead).
        return Arrays.stream(classpath.split(File.pathSeparator)).map(Path::of).filter(Files::isDirectory)
                .filter(AotLaunch::hasEntries).findFirst()
                .map(dir -> new Base(start, false, dir + " is a directory of classes, which an AOT cache cannot take"))
                .orElseGet(() -> new Base(start, true, null));
    }

    private static boolean hasEntries(Path dir) {
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        } catch (IOException e) {
            return true;
        }
    }

    /** The server jar extracted by Spring Boot's jar tools (once per build of that jar). */
    private static Base extractedServer() {
        Path jar = ItCluster.SERVER_JAR;
        Path extracted = DIR.resolve("server").resolve(jar.getFileName());
        List<String> plain = List.of("-jar", jar.toString());
        if (!Files.isRegularFile(jar)) {
            return new Base(plain, false, null);
        }
        if (!Files.isRegularFile(extracted) || modified(extracted).compareTo(modified(jar)) < 0) {
            List<String> java = List.of(JvmProcess.javaExecutable().toString(), "-Djarmode=tools", "-jar",
                    jar.toString(), "extract", "--force", "--destination", extracted.getParent().toString());
            if (!run(java, DIR.resolve("server-extract.log"), 120)) {
                return new Base(plain, false, "extracting " + jar + " failed (see " + DIR.resolve("server-extract.log")
                        + ")");
            }
        }
        return new Base(List.of("-jar", extracted.toString()), true, null);
    }

    /**
     * One start that stops once its Spring context is refreshed (before it serves or joins anything) and writes the
     * cache as it exits; false, saying why, when that fails.
     */
    private boolean train(Path cache, List<String> start) {
        Path log = DIR.resolve(name + "-training.log");
        long began = System.nanoTime();
        System.out.println("it: training the " + name + " JVMs' AOT cache " + cache + " (once per build, 20-40 s on 2 "
                + "cores; log " + log + ")");
        try {
            Files.deleteIfExists(cache);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> java = new ArrayList<>(List.of(JvmProcess.javaExecutable().toString()));
        java.addAll(JvmProcess.FAST_START);
        java.addAll(List.of("-XX:AOTCacheOutput=" + cache.toAbsolutePath(), "-Dspring.context.exit=onRefresh"));
        java.addAll(start);
        java.addAll(trainingArgs);
        if (!run(java, log, TRAINING_DEADLINE_SECONDS) || !Files.isRegularFile(cache)) {
            System.out.println("it: no AOT cache for the " + name + " JVMs (see " + log + "); they start without one");
            return false;
        }
        try {
            System.out.printf("it: %s AOT cache trained in %.1f s (%d MiB)%n", name, (System.nanoTime() - began) / 1e9,
                    Files.size(cache) >> 20);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return true;
    }

    /** Runs a command to its end within a deadline, its output in {@code log}; true when it exited with 0. */
    private static boolean run(List<String> command, Path log, long deadlineSeconds) {
        try {
            Files.createDirectories(DIR);
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().keySet().removeIf(k -> k.startsWith("ALLSUM_") || k.equals("RANK")
                    || k.equals("WORLD_SIZE"));
            Process process = builder.start();
            if (!process.waitFor(deadlineSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                System.out.println("it: " + String.join(" ", command.subList(0, 3)) + "... ran past " + deadlineSeconds
                        + " s and was stopped");
                return false;
            }
            return process.exitValue() == 0;
        } catch (IOException e) {
            System.out.println("it: " + command.getFirst() + " could not run: " + e);
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The JVM refuses a cache whose jars changed since training: a cache counts only when newer than them all. */
    private static boolean isNewerThanEveryJar(Path cache, List<String> start) {
        if (!Files.isRegularFile(cache)) {
            return false;
        }
        FileTime trained = modified(cache);
        List<Path> jars = new ArrayList<>();
        for (int i = 0; i + 1 < start.size(); i++) {
            if (start.get(i).equals("-cp")) {
                Arrays.stream(start.get(i + 1).split(File.pathSeparator)).map(Path::of).forEach(jars::add);
            } else if (start.get(i).equals("-jar")) {
                Path jar = Path.of(start.get(i + 1));
                jars.add(jar);
                try (Stream<Path> lib = Files.list(jar.resolveSibling("lib"))) {
                    lib.forEach(jars::add);
                } catch (IOException e) {
                    // no lib folder beside the jar: only the jar itself
                }
            }
        }
        return jars.stream().filter(Files::isRegularFile).noneMatch(jar -> modified(jar).compareTo(trained) > 0);
    }

    private static FileTime modified(Path file) {
        try {
            return Files.getLastModifiedTime(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
