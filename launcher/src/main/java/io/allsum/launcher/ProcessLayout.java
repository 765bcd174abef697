package io.allsum.launcher;

import io.allsum.model.Backend;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the server and worker programs come from: the self-contained distribution ({@code $ALLSUM_HOME/bin/
 * allsum-server} and {@code allsum-worker}, which set their own JVM flags), else the repository's jars run with
 * this launcher's own java and the flags of {@code packaging/jvm/*.jvmargs} (the one place the JVM flags live).
 */
public record ProcessLayout(Program server, Program worker, Program ncclWorker, String description) {

    /**
     * The worker program for a backend: NCCL workers also read {@code worker-nccl.jvmargs} (C2 at the JVM's default
     * thresholds: an NCCL call of a few microseconds must not run in C1 code). The distribution's
     * {@code bin/allsum-worker} picks that file itself from {@code ALLSUM_BACKEND}, so there both are the same.
     */
    public Program worker(Backend backend) {
        return backend == Backend.NCCL ? ncclWorker : worker;
    }

    /**
     * One program: {@code jvm} (java and its flags, or a start script), then {@code main} ({@code -jar X}); JVM flags
     * of a run (the AOT cache's) go between the two. {@code aot} is null where there is no cache to use.
     */
    public record Program(List<String> jvm, List<String> main, AotCache aot) {

        public List<String> command(List<String> extraJvmFlags) {
            List<String> out = new ArrayList<>(jvm);
            out.addAll(extraJvmFlags);
            out.addAll(main);
            return out;
        }

        /** The same program run from the AOT cache's extracted jar. */
        Program extracted() {
            return aot == null ? this : new Program(jvm, List.of("-jar", aot.extractedJar().toString()), aot);
        }

        Program withoutAot() {
            return new Program(jvm, main, null);
        }
    }

    /** Where the JVM flag files live, relative to the repository or the distribution. */
    static final String REPO_JVM_ARGS = "packaging/jvm";

    public List<String> serverCommand() {
        return server.command(List.of());
    }

    public List<String> workerCommand() {
        return worker.command(List.of());
    }

    public static ProcessLayout resolve(String allsumHome, Path repoRoot, Path javaBinary) {
        if (allsumHome != null && !allsumHome.isBlank()) {
            Path bin = Path.of(allsumHome, "bin");
            if (Files.isExecutable(bin.resolve("allsum-server")) && Files.isExecutable(bin.resolve("allsum-worker"))) {
                Program worker = new Program(List.of(bin.resolve("allsum-worker").toString()), List.of(), null);
                return new ProcessLayout(new Program(List.of(bin.resolve("allsum-server").toString()), List.of(), null),
                        worker, worker, "distribution " + allsumHome);
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
        List<String> serverJvm = jvm(javaBinary, flags, "server.jvmargs", "local-server.jvmargs");
        List<String> workerJvm = jvm(javaBinary, flags, "worker.jvmargs");
        List<String> ncclWorkerJvm = jvm(javaBinary, flags, "worker.jvmargs", "worker-nccl.jvmargs");
        return new ProcessLayout(
                new Program(serverJvm, List.of("-jar", serverJar.toString()), new AotCache(serverJar)),
                new Program(workerJvm, List.of("-jar", workerJar.toString()), new AotCache(workerJar)),
                new Program(ncclWorkerJvm, List.of("-jar", workerJar.toString()), new AotCache(workerJar)),
                "jars in " + repoRoot);
    }

    /** java and its @argfiles; a missing file (an old checkout) is skipped rather than failing java's start. */
    private static List<String> jvm(Path java, Path dir, String... files) {
        List<String> out = new ArrayList<>();
        out.add(java.toString());
        for (String f : files) {
            if (Files.isRegularFile(dir.resolve(f))) {
                out.add("@" + dir.resolve(f));
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
