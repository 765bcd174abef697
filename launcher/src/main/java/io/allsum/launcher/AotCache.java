package io.allsum.launcher;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * JDK 25's ahead-of-time cache (JEP 483, 514, 515) for one Spring Boot app jar of the repository: classes loaded and
 * linked, and method profiles, from a recorded run, so that the next JVMs start with a fraction of the CPU. The cache
 * needs a plain classpath, so the fat jar is extracted once ({@code java -Djarmode=tools extract}) into
 * {@code target/aot/<app>/}. The cache is recorded by the first local run after a build (one JVM per app writes it
 * when it exits) and used by every run after it; a rebuilt jar makes both stale, and they are redone. One run at a
 * time extracts (a lock file beside the layout); the others wait for it within their deadline.
 */
public final class AotCache {

    /** An extraction that takes longer than this falls back to the fat jar (it takes seconds). */
    static final Duration EXTRACT_CAP = Duration.ofSeconds(120);
    /** A wait longer than this says on stderr what it waits for. */
    static final Duration SAY_AFTER = Duration.ofSeconds(2);
    private static final Duration POLL = Duration.ofMillis(100);

    private final Path fatJar;
    private final Path dir;
    private final Path extractedJar;
    private final Path cache;
    private final Path stamp;
    private final Path lock;

    public AotCache(Path fatJar) {
        this.fatJar = fatJar;
        String name = fatJar.getFileName().toString().replaceFirst("\\.jar$", "");
        this.dir = fatJar.resolveSibling("aot").resolve(name);
        this.extractedJar = dir.resolve(fatJar.getFileName());
        this.cache = fatJar.resolveSibling("aot").resolve(name + ".aot");
        this.stamp = fatJar.resolveSibling("aot").resolve(name + ".stamp");
        this.lock = fatJar.resolveSibling("aot").resolve(name + ".lock");
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
     * Returns false (and the caller runs the fat jar as is) when extraction fails. Waits for another run's extraction
     * and for its own at most until {@code deadline}, then throws; {@code say} hears what it waits for after
     * {@link #SAY_AFTER}.
     */
    public boolean extract(Path java, Deadline deadline, Consumer<String> say) {
        String want = currentStamp();
        if (extracted(want)) {
            return true;
        }
        try {
            Files.createDirectories(dir.getParent());
            try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock _ = acquire(channel, deadline, say)) {
                // The run that held the lock may have extracted this very jar.
                return extracted(want) || extractLocked(java, want, deadline, say);
            }
        } catch (IOException e) {
            return false;
        }
    }

    private boolean extracted(String want) {
        return want.equals(readStamp()) && Files.isRegularFile(extractedJar);
    }

    /** The lock of the extraction, once no other process (or thread) holds it; throws at {@code deadline}. */
    private FileLock acquire(FileChannel channel, Deadline deadline, Consumer<String> say) throws IOException {
        long start = System.nanoTime();
        boolean said = false;
        while (true) {
            try {
                FileLock held = channel.tryLock();
                if (held != null) {
                    return held;
                }
            } catch (OverlappingFileLockException e) {
                // This JVM holds it: another thread extracts the same jar.
            }
            if (deadline.passed()) {
                throw new LauncherException("gave up waiting for the lock " + lock + " (another allsum extracts "
                        + fatJar.getFileName() + " for its AOT cache) " + deadline.within()
                        + "; ALLSUM_AOT=off starts without AOT caches");
            }
            if (!said && System.nanoTime() - start >= SAY_AFTER.toNanos()) {
                say.accept("waiting for another allsum to extract " + fatJar.getFileName() + " for its AOT cache "
                        + "(lock " + lock + ")");
                said = true;
            }
            deadline.sleep(POLL);
        }
    }

    private boolean extractLocked(Path java, String want, Deadline deadline, Consumer<String> say) throws IOException {
        LocalCluster.deleteRecursively(dir);
        Files.deleteIfExists(cache);
        Files.deleteIfExists(stamp);
        Process p = new ProcessBuilder(java.toString(), "-Djarmode=tools", "-jar", fatJar.toString(), "extract",
                "--destination", dir.toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Deadline capped = deadline.earlier(Deadline.in(EXTRACT_CAP));
        try {
            if (!p.waitFor(capped.remainingAtMost(SAY_AFTER).toNanos(), TimeUnit.NANOSECONDS) && !capped.passed()) {
                say.accept("extracting " + fatJar.getFileName() + " for its AOT cache (once per build)");
                p.waitFor(capped.remaining().toNanos(), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new LauncherException(ExitCodes.INTERRUPTED, "interrupted", e);
        }
        if (p.isAlive()) {
            p.destroyForcibly();
            if (deadline.passed()) {
                throw new LauncherException("the extraction of " + fatJar.getFileName() + " for its AOT cache did not "
                        + "end " + deadline.within() + "; ALLSUM_AOT=off starts without AOT caches");
            }
            return false;
        }
        if (p.exitValue() != 0 || !Files.isRegularFile(extractedJar)) {
            return false;
        }
        Files.writeString(stamp, want, StandardCharsets.UTF_8);
        return true;
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
