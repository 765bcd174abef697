package io.allsum.server.dashboard;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;

/** Where no browser is installed, the browser tests are skipped with a reason that says how to get one. */
class EnabledWithChromiumTest {

    @TempDir
    Path dir;

    private Path executable(String name) throws IOException {
        Path file = Files.writeString(dir.resolve(name), "#!/bin/sh\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    @Test
    void withoutChromiumTheTestsAreSkippedSayingWhatToInstall() {
        ConditionEvaluationResult result = EnabledWithChromium.Condition.evaluate(Optional.empty(), Optional.of(dir));

        assertThat(result.isDisabled()).isTrue();
        assertThat(result.getReason()).hasValueSatisfying(reason -> assertThat(reason)
                .contains("no Chromium found").contains("apt-get install chromium").contains("skipped"));
    }

    @Test
    void withoutTheDriverTheTestsAreSkippedSayingWhatToInstall() {
        ConditionEvaluationResult result = EnabledWithChromium.Condition.evaluate(Optional.of(dir), Optional.empty());

        assertThat(result.isDisabled()).isTrue();
        assertThat(result.getReason()).hasValueSatisfying(reason -> assertThat(reason).contains("chromium-driver"));
    }

    @Test
    void aConfiguredPathWinsAndMustBeExecutable() throws IOException {
        Path driver = executable("my-driver");

        assertThat(EnabledWithChromium.Condition.find(driver.toString(), "", List.of("chromedriver"))).contains(driver);
        assertThat(EnabledWithChromium.Condition.find(dir.resolve("absent").toString(), "/usr/bin",
                List.of("chromedriver"))).isEmpty();
    }

    @Test
    void theFirstExecutableOfTheNamesOnThePathIsFound() throws IOException {
        Path browser = executable("chromium-browser");
        Files.writeString(dir.resolve("chromium"), "not executable");

        assertThat(EnabledWithChromium.Condition.find(null, dir.toString(), List.of("chromium", "chromium-browser")))
                .contains(browser);
    }
}
