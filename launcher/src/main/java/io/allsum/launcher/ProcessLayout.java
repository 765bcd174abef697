package io.allsum.launcher;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the server and worker programs come from: the self-contained distribution ({@code $ALLSUM_HOME/bin/
 * allsum-server} and {@code allsum-worker}, which set their own JVM flags), else the repository's jars run with
 * this launcher's own java.
 */
public record ProcessLayout(List<String> serverCommand, List<String> workerCommand, String description) {

    /** JavaCPP's settings must be JVM flags; the CUDA driver's resident memory trips its host-memory check. */
    static final List<String> WORKER_JVM_FLAGS =
            List.of("--enable-native-access=ALL-UNNAMED", "-Dorg.bytedeco.javacpp.maxPhysicalBytes=0");

    public static ProcessLayout resolve(String allsumHome, Path repoRoot, Path javaBinary) {
        if (allsumHome != null && !allsumHome.isBlank()) {
            Path bin = Path.of(allsumHome, "bin");
            if (Files.isExecutable(bin.resolve("allsum-server")) && Files.isExecutable(bin.resolve("allsum-worker"))) {
                return new ProcessLayout(List.of(bin.resolve("allsum-server").toString()),
                        List.of(bin.resolve("allsum-worker").toString()), "distribution " + allsumHome);
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
        List<String> server = List.of(javaBinary.toString(), "-jar", serverJar.toString());
        List<String> worker = new ArrayList<>();
        worker.add(javaBinary.toString());
        worker.addAll(WORKER_JVM_FLAGS);
        worker.add("-jar");
        worker.add(workerJar.toString());
        return new ProcessLayout(server, List.copyOf(worker), "jars in " + repoRoot);
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
