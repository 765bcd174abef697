package io.allsum.launcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;

import static org.assertj.core.api.Assertions.assertThat;

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
}
