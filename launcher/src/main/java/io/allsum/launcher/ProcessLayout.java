package io.allsum.launcher;

import io.allsum.model.Backend;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;

/**
 * Where the server and worker programs come from: the self-contained distribution ({@code $ALLSUM_HOME/bin/
 * allsum-server} and {@code allsum-worker}, which read their JVM flags from {@code conf/}), else the repository's
 * jars run with this launcher's own java and the flags of {@code packaging/jvm/*.jvmargs} (the one place the JVM
 * flags live). {@code plainWorker} is a worker of a plain local run: no HTTP port
 * ({@code local-worker.jvmargs}), so it can start from the Spring AOT code processed for exactly that.
 * {@code ncclWorkerFlags} are added for workers of the NCCL backend ({@code worker-nccl.jvmargs}: C2 at the JVM's
 * default thresholds, since an NCCL call of a few microseconds must not run in C1 code); empty for a distribution,
 * whose {@code bin/allsum-worker} picks that file itself from {@code ALLSUM_BACKEND}.
 */
public record ProcessLayout(Program server, Program worker, Program plainWorker, List<String> ncclWorkerFlags,
                            String description) {

    /** Flag files a local run adds: the server's, a plain worker's, and Spring AOT's (for both). */
    static final String LOCAL_SERVER = "local-server", LOCAL_WORKER = "local-worker", SPRING_AOT = "spring-aot";

    /**
     * One program: {@code jvm} (java and its flags, or a start script), then {@code main} ({@code -jar X}); JVM flags
     * of a run (the AOT cache's) go between the two. {@code aot} is null where there is no cache to use; {@code env}
     * is added to the child's environment (a distribution script's {@code ALLSUM_JVM_CONF}).
     */
    public record Program(List<String> jvm, List<String> main, AotCache aot, Map<String, String> env) {

        public Program(List<String> jvm, List<String> main, AotCache aot) {
            this(jvm, main, aot, Map.of());
        }

        public List<String> command(List<String> extraJvmFlags) {
            List<String> out = new ArrayList<>(jvm);
            out.addAll(extraJvmFlags);
            out.addAll(main);
            return out;
        }

        /** The same program run from the AOT cache's extracted jar. */
        Program extracted() {
            return aot == null ? this : new Program(jvm, List.of("-jar", aot.extractedJar().toString()), aot, env);
        }

        Program withoutAot() {
            return new Program(jvm, main, null, env);
        }
    }

    /** Where the JVM flag files live, relative to the repository or the distribution. */
    static final String REPO_JVM_ARGS = "packaging/jvm";

    /** The worker program for a backend, with its HTTP port ({@code http}) or as a plain local run's worker. */
    public Program worker(Backend backend, boolean http) {
        Program program = http ? worker : plainWorker;
        if (backend != Backend.NCCL || ncclWorkerFlags.isEmpty()) {
            return program;
        }
        // Right after worker.jvmargs (or java), before the local and AOT files: the order the distribution's script uses.
        List<String> jvm = new ArrayList<>(program.jvm());
        int at = 1;
        for (int i = 1; i < jvm.size(); i++) {
            if (jvm.get(i).endsWith("worker.jvmargs") && !jvm.get(i).endsWith("local-worker.jvmargs")) {
                at = i + 1;
            }
        }
        jvm.addAll(at, ncclWorkerFlags);
        return new Program(List.copyOf(jvm), program.main(), program.aot(), program.env());
    }

    public List<String> serverCommand() {
        return server.command(List.of());
    }

    public List<String> workerCommand() {
        return worker.command(List.of());
    }

    /** As {@link #resolve(String, Path, Path, boolean)}, with Spring AOT unless {@code ALLSUM_SPRING_AOT=off}. */
    public static ProcessLayout resolve(String allsumHome, Path repoRoot, Path javaBinary) {
        return resolve(allsumHome, repoRoot, javaBinary, springAot(System.getenv("ALLSUM_SPRING_AOT")));
    }

    /** Whether the variable {@code ALLSUM_SPRING_AOT} (null when unset) leaves Spring AOT on: all but "off". */
    static boolean springAot(String variable) {
        return !"off".equalsIgnoreCase(variable);
    }

    /**
     * @param springAot start the local server and plain workers from their Spring AOT code, where the jar has it (a
     *                  jar built before it was processed falls back to the ordinary start-up, never fails)
     */
    public static ProcessLayout resolve(String allsumHome, Path repoRoot, Path javaBinary, boolean springAot) {
        if (allsumHome != null && !allsumHome.isBlank()) {
            Path bin = Path.of(allsumHome, "bin");
            if (Files.isExecutable(bin.resolve("allsum-server")) && Files.isExecutable(bin.resolve("allsum-worker"))) {
                Path lib = Path.of(allsumHome, "lib");
                boolean serverAot = springAot && distHasSpringAot(lib, "server");
                boolean workerAot = springAot && distHasSpringAot(lib, "worker");
                Program worker = new Program(List.of(bin.resolve("allsum-worker").toString()), List.of(), null);
                return new ProcessLayout(
                        new Program(List.of(bin.resolve("allsum-server").toString()), List.of(), null,
                                Map.of("ALLSUM_JVM_CONF", serverAot ? LOCAL_SERVER + " " + SPRING_AOT : LOCAL_SERVER)),
                        worker,
                        new Program(worker.jvm(), List.of(), null,
                                Map.of("ALLSUM_JVM_CONF", workerAot ? LOCAL_WORKER + " " + SPRING_AOT : LOCAL_WORKER)),
                        List.of(), "distribution " + allsumHome);
            }
        }
        if (repoRoot == null) {
            throw new LauncherException("cannot find the allsum jars: run ./allsum from the repository, or set "
                    + "ALLSUM_HOME to an allsum distribution");
        }
        Path serverJar = repoRoot.resolve("rendezvous-server/target/rendezvous-server.jar");
        Path workerJar = repoRoot.resolve("worker-agent/target/worker-agent.jar");
        for (Path jar : List.of(serverJar, workerJar)) {
            if (!Files.isRegularFile(jar)) {
                throw new LauncherException(jar + " is missing: build it with ./mvnw -DskipTests package "
                        + "(./allsum does that for you)");
            }
        }
        Path flags = repoRoot.resolve(REPO_JVM_ARGS);
        List<String> serverJvm = jvm(javaBinary, flags, "server", LOCAL_SERVER,
                springAot && hasSpringAot(serverJar) ? SPRING_AOT : null);
        List<String> workerJvm = jvm(javaBinary, flags, "worker");
        List<String> plainWorkerJvm = jvm(javaBinary, flags, "worker", LOCAL_WORKER,
                springAot && hasSpringAot(workerJar) ? SPRING_AOT : null);
        AotCache workerCache = new AotCache(workerJar);
        List<String> workerMain = List.of("-jar", workerJar.toString());
        return new ProcessLayout(
                new Program(serverJvm, List.of("-jar", serverJar.toString()), new AotCache(serverJar)),
                new Program(workerJvm, workerMain, workerCache),
                new Program(plainWorkerJvm, workerMain, workerCache),
                jvm(javaBinary, flags, "worker-nccl").stream().skip(1).toList(),
                "jars in " + repoRoot);
    }

    /**
     * Whether a Spring Boot jar holds its Spring AOT code ({@code <Start-Class>__ApplicationContextInitializer}):
     * {@code -Dspring.aot.enabled=true} on a jar without it stops the JVM at start-up.
     */
    static boolean hasSpringAot(Path bootJar) {
        try (JarFile jar = new JarFile(bootJar.toFile())) {
            String start = jar.getManifest() == null ? null : jar.getManifest().getMainAttributes().getValue("Start-Class");
            return start != null && jar.getEntry("BOOT-INF/classes/" + start.replace('.', '/')
                    + "__ApplicationContextInitializer.class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /** The same for a distribution's thin jar, {@code lib/allsum-<app>.jar}, whose main class is in lib/<app>.main. */
    static boolean distHasSpringAot(Path lib, String app) {
        try (JarFile jar = new JarFile(lib.resolve("allsum-" + app + ".jar").toFile())) {
            String main = Files.readString(lib.resolve(app + ".main")).strip();
            return jar.getEntry(main.replace('.', '/') + "__ApplicationContextInitializer.class") != null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * java and its @argfiles ({@code NAME.jvmargs}; null names none); a missing file (an old checkout) is skipped
     * rather than failing java's start.
     */
    private static List<String> jvm(Path java, Path dir, String... names) {
        List<String> out = new ArrayList<>();
        out.add(java.toString());
        for (String name : names) {
            Path f = name == null ? null : dir.resolve(name + ".jvmargs");
            if (f != null && Files.isRegularFile(f)) {
                out.add("@" + f);
            }
        }
        return List.copyOf(out);
    }

    /**
     * The repository root, found from the launcher jar (launcher/target/allsum-launcher.jar), or from
     * {@code -Dallsum.repo}; null when neither leads to a checkout.
     */
    public static Path findRepoRoot() {
        String explicit = System.getProperty("allsum.repo");
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit).toAbsolutePath();
        }
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (entry.endsWith(".jar") || entry.endsWith("classes") || entry.endsWith("test-classes")) {
                Path p = Path.of(entry).toAbsolutePath().getParent();
                for (int up = 0; p != null && up < 4; up++, p = p.getParent()) {
                    if (Files.isDirectory(p.resolve("rendezvous-server")) && Files.isDirectory(p.resolve("worker-agent"))) {
                        return p;
                    }
                }
            }
        }
        return null;
    }

    public static Path currentJava() {
        return Path.of(System.getProperty("java.home"), "bin", "java");
    }
}
