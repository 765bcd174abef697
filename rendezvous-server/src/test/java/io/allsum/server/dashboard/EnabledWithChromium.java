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
            Optional<Path> browser = chromium();
            Optional<Path> driver = chromedriver();
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
            return find("ALLSUM_CHROMIUM", List.of("chromium", "chromium-browser", "google-chrome"));
        }

        static Optional<Path> chromedriver() {
            return find("ALLSUM_CHROMEDRIVER", List.of("chromedriver"));
        }

        private static Optional<Path> find(String env, List<String> names) {
            String set = System.getenv(env);
            if (set != null && !set.isBlank()) {
                return Optional.of(Path.of(set)).filter(Files::isExecutable);
            }
            String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
            return Stream.concat(Stream.of(path.split(":")), Stream.of("/usr/bin", "/usr/lib/chromium"))
                    .flatMap(dir -> names.stream().map(name -> Path.of(dir, name)))
                    .filter(Files::isExecutable).findFirst();
        }
    }
}
