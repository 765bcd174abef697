package io.allsum.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * JDK 25's ahead-of-time cache (JEP 483, 514, 515) for one Spring Boot app jar of the repository: classes loaded and
 * linked, and method profiles, from a recorded run, so that the next JVMs start with a fraction of the CPU. The cache
 * needs a plain classpath, so the fat jar is extracted once ({@code java -Djarmode=tools extract}) into
 * {@code target/aot/<app>/}. The cache is recorded by the first local run after a build (one JVM per app writes it
 * when it exits) and used by every run after it; a rebuilt jar makes both stale, and they are redone.
 */
public final class AotCache {

    private final Path fatJar;
    private final Path dir;
    private final Path extractedJar;
    private final Path cache;
    private final Path stamp;

    public AotCache(Path fatJar) {
        this.fatJar = fatJar;
        String name = fatJar.getFileName().toString().replaceFirst("\\.jar$", "");
        this.dir = fatJar.resolveSibling("aot").resolve(name);
        this.extractedJar = dir.resolve(fatJar.getFileName());
        this.cache = fatJar.resolveSibling("aot").resolve(name + ".aot");
        this.stamp = fatJar.resolveSibling("aot").resolve(name + ".stamp");
    }

    /** The app's jar in the extracted layout (its manifest's Class-Path names lib/). */
    public Path extractedJar() {
        return extractedJar;
    }

    public Path cacheFile() {
        return cache;
    }

    /** Whether the extracted layout and the cache were both made from the current fat jar. */
    public boolean ready() {
        return Files.isRegularFile(cache) && Files.isRegularFile(extractedJar) && currentStamp().equals(readStamp());
    }

    /**
     * Extracts the fat jar unless the extracted layout is from this very jar; a new extraction drops an old cache.
     * Returns false (and the caller runs the fat jar as is) when extraction fails.
     */
    public boolean extract(Path java) {
        String want = currentStamp();
        if (want.equals(readStamp()) && Files.isRegularFile(extractedJar)) {
            return true;
        }
        try {
            LocalCluster.deleteRecursively(dir);
            Files.deleteIfExists(cache);
            Files.deleteIfExists(stamp);
            Files.createDirectories(dir.getParent());
            Process p = new ProcessBuilder(java.toString(), "-Djarmode=tools", "-jar", fatJar.toString(), "extract",
                    "--destination", dir.toString()).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return false;
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(extractedJar)) {
                return false;
            }
            Files.writeString(stamp, want, StandardCharsets.UTF_8);
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Where a recording JVM writes; unique per run, so that concurrent first runs do not write one file. */
    public Path recordingFile() {
        return cache.resolveSibling(cache.getFileName() + ".recording-" + ProcessHandle.current().pid());
    }

    /** JVM flags that use the cache, or record it into {@code recording}. */
    public List<String> flags(Path recording) {
        return recording == null ? List.of("-XX:AOTCache=" + cache) : List.of("-XX:AOTCacheOutput=" + recording);
    }

    /** After the recording JVM exited: the recorded cache becomes the cache when it is complete. */
    public void adopt(Path recording) {
        try {
            if (Files.isRegularFile(recording) && Files.size(recording) > 0 && currentStamp().equals(readStamp())) {
                Files.move(recording, cache, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
        } catch (IOException e) {
            // A cache is an optimisation: without it the next run records again.
        } finally {
            try {
                Files.deleteIfExists(recording);
                Files.deleteIfExists(recording.resolveSibling(recording.getFileName() + ".config"));
            } catch (IOException e) {
                // Same.
            }
        }
    }

    private String currentStamp() {
        try {
            return Files.size(fatJar) + " " + Files.getLastModifiedTime(fatJar).toMillis();
        } catch (IOException e) {
            return "missing";
        }
    }

    private String readStamp() {
        try {
            return Files.readString(stamp, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "";
        }
    }
}
