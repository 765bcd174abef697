package io.allsum.server.dashboard;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Runs a test only where a Chromium and its chromedriver are installed (Debian: {@code apt-get install chromium
 * chromium-driver}, as .ci/run does); elsewhere it is skipped with the reason. {@code ALLSUM_CHROMIUM} and
 * {@code ALLSUM_CHROMEDRIVER} point at other binaries. Selenium Manager is never asked: it would download drivers.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@ExtendWith(EnabledWithChromium.Condition.class)
public @interface EnabledWithChromium {

    final class Condition implements ExecutionCondition {

        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            return evaluate(chromium(), chromedriver());
        }

        static ConditionEvaluationResult evaluate(Optional<Path> browser, Optional<Path> driver) {
            if (browser.isEmpty()) {
                return ConditionEvaluationResult.disabled("no Chromium found (set ALLSUM_CHROMIUM, or apt-get install"
                        + " chromium): the dashboard's browser tests are skipped");
            }
            if (driver.isEmpty()) {
                return ConditionEvaluationResult.disabled("no chromedriver found (set ALLSUM_CHROMEDRIVER, or apt-get"
                        + " install chromium-driver): the dashboard's browser tests are skipped");
            }
            return ConditionEvaluationResult.enabled("Chromium " + browser.get() + ", driver " + driver.get());
        }

        static Optional<Path> chromium() {
            return find(System.getenv("ALLSUM_CHROMIUM"), System.getenv("PATH"),
                    List.of("chromium", "chromium-browser", "google-chrome"));
        }

        static Optional<Path> chromedriver() {
            return find(System.getenv("ALLSUM_CHROMEDRIVER"), System.getenv("PATH"), List.of("chromedriver"));
        }

        /** The configured file if set (and executable), else the first of {@code names} on the PATH or /usr/bin. */
        static Optional<Path> find(String configured, String path, List<String> names) {
            if (configured != null && !configured.isBlank()) {
                return Optional.of(Path.of(configured)).filter(Files::isExecutable);
            }
            String dirs = path == null || path.isBlank() ? "/usr/bin:/bin" : path;
            return Stream.concat(Stream.of(dirs.split(":")), Stream.of("/usr/bin", "/usr/lib/chromium"))
                    .filter(dir -> !dir.isBlank())
                    .flatMap(dir -> names.stream().map(name -> Path.of(dir, name)))
                    .filter(Files::isExecutable).findFirst();
        }
    }
}
