package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AotCacheTest {

    @TempDir
    Path dir;

    @Test
    void aCacheIsUsedOnlyWhileTheJarItWasMadeFromIsUnchanged() throws IOException {
        Path jar = Files.writeString(dir.resolve("app.jar"), "jar v1");
        AotCache aot = new AotCache(jar);
        Files.createDirectories(aot.extractedJar().getParent());
        Files.writeString(aot.extractedJar(), "thin jar");
        Files.writeString(dir.resolve("aot/app.stamp"), Files.size(jar) + " " + Files.getLastModifiedTime(jar).toMillis());
        Path recording = aot.recordingFile();
        Files.writeString(recording, "cache bytes");

        aot.adopt(recording);

        assertThat(aot.ready()).isTrue();
        assertThat(aot.flags(null)).containsExactly("-XX:AOTCache=" + aot.cacheFile());
        assertThat(recording).doesNotExist();

        Files.writeString(jar, "jar v2, rebuilt");
        Files.setLastModifiedTime(jar, FileTime.fromMillis(System.currentTimeMillis() + 5000));

        assertThat(aot.ready()).as("a rebuilt jar makes the cache stale").isFalse();
    }

    @Test
    void anEmptyRecordingIsNotAdopted() throws IOException {
        Path jar = Files.writeString(dir.resolve("app.jar"), "jar");
        AotCache aot = new AotCache(jar);
        Files.createDirectories(dir.resolve("aot"));
        Path recording = Files.writeString(aot.recordingFile(), "");

        aot.adopt(recording);

        assertThat(aot.cacheFile()).doesNotExist();
        assertThat(aot.flags(recording)).containsExactly("-XX:AOTCacheOutput=" + recording);
    }

    /** A JVM of its own that holds the lock on {@code file} until it is killed. */
    private Process holdLock(Path file) throws IOException {
        Path source = Files.writeString(dir.resolve("LockHolder.java"), """
                import java.nio.channels.FileChannel;
                import java.nio.file.Path;
                import java.nio.file.StandardOpenOption;

                public class LockHolder {
                    public static void main(String[] args) throws Exception {
                        try (var channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
                                StandardOpenOption.WRITE); var lock = channel.lock()) {
                            System.out.println("locked");
                            Thread.sleep(120_000);
                        }
                    }
                }
                """);
        Process holder = new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(), source.toString(),
                file.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        String line = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
        assertThat(line).as("the holder took the lock").isEqualTo("locked");
        return holder;
    }

    @Test
    void aLockHeldByAnotherProcessIsWaitedForUntilTheDeadlineThenGivenUpSayingWhy() throws IOException {
        Path jar = Files.writeString(dir.resolve("app.jar"), "jar");
        AotCache aot = new AotCache(jar);
        Path lock = Files.createDirectories(dir.resolve("aot")).resolve("app.lock");
        Process holder = holdLock(lock);
        try {
            Deadline deadline = Deadline.in(Duration.ofSeconds(3), "--timeout 3 s");
            List<String> said = new CopyOnWriteArrayList<>();

            assertThatThrownBy(() -> aot.extract(Path.of("never-started-java"), deadline, said::add))
                    .isInstanceOf(LauncherException.class)
                    .hasMessage("gave up waiting for the lock " + lock + " (another allsum extracts app.jar for its "
                            + "AOT cache) within --timeout 3 s; ALLSUM_AOT=off starts without AOT caches");

            assertThat(deadline.passed()).as("it waited up to the deadline").isTrue();
            assertThat(said).containsExactly("waiting for another allsum to extract app.jar for its AOT cache (lock "
                    + lock + ")");
            assertThat(aot.extractedJar()).doesNotExist();
        } finally {
            holder.destroyForcibly();
        }
    }

    @Test
    void anExtractionStillRunningAtTheDeadlineIsStoppedAndSaysSo() throws Exception {
        Path jar = Files.writeString(dir.resolve("app.jar"), "jar");
        AotCache aot = new AotCache(jar);
        // Stands in for a java whose extraction hangs.
        Path java = Files.writeString(dir.resolve("java"), "#!/bin/sh\nexec sleep 60\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwx------"));
        Deadline deadline = Deadline.in(Duration.ofSeconds(1), "--timeout 1 s");

        assertThatThrownBy(() -> aot.extract(java, deadline, message -> { }))
                .isInstanceOf(LauncherException.class)
                .hasMessage("the extraction of app.jar for its AOT cache did not end within --timeout 1 s; "
                        + "ALLSUM_AOT=off starts without AOT caches");

        for (ProcessHandle child : ProcessHandle.current().children().toList()) {
            if (child.info().command().orElse("").endsWith("sleep")) {
                child.onExit().get(10, TimeUnit.SECONDS);
            }
        }
        assertThat(ProcessHandle.current().children().filter(ProcessHandle::isAlive)
                .filter(c -> c.info().command().orElse("").endsWith("sleep"))).as("the extraction was killed").isEmpty();
    }
}
